/**
 * Helpers shared by the hold store contract sections. Implementation-neutral: they only
 * build port requests and never look inside a store.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, expect } from "vitest";
import type {
  GatewayStore,
  HoldOutcome,
  HoldRecord,
  PlaceHoldRequest,
  Interval,
  Requirement,
  Transition,
} from "../../../src/holds/port.js";

export type StoreFactory = () => Promise<{ store: GatewayStore; cleanup(): Promise<void> }>;

export const SECOND = 1_000;
export const MINUTE = 60 * SECOND;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

/** A Monday, 09:00 UTC: every test's slots are placed relative to it. */
export const T0 = Date.UTC(2030, 0, 7, 9, 0, 0);
/** The default "now" of a request: an hour before T0. */
export const NOW = T0 - HOUR;
export const TTL = 5 * MINUTE;

/** Each test gets its own host, so tests never see each other's state (a shared Redis). */
export const newHost = (): string => `host-${randomUUID()}`;
export const newId = (prefix: string): string => `${prefix}-${randomUUID()}`;

/** [T0 + fromMin, T0 + toMin) in minutes. */
export const at = (fromMin: number, toMin: number): Interval => ({
  start: T0 + fromMin * MINUTE,
  end: T0 + toMin * MINUTE,
});

export const req = (
  type: string,
  candidates: ReadonlyArray<readonly [id: string, capacity: number]>,
  units = 1,
  combine?: boolean,
): Requirement => ({
  type,
  candidates: candidates.map(([id, capacity]) => ({ id, capacity })),
  units,
  ...(combine === undefined ? {} : { combine }),
});

/** One bay, capacity 1, unless the test says otherwise. */
export const BAY1 = req("bay", [["bay-1", 1]]);

export function holdRequest(hostId: string, over: Partial<PlaceHoldRequest> = {}): PlaceHoldRequest {
  return {
    hostId,
    holdId: newId("h"),
    serviceId: "svc",
    interval: at(0, 60),
    requirements: [BAY1],
    ttlMs: TTL,
    now: NOW,
    owner: { agentKey: "agent-A", principal: "principal-A", mandates: [] },
    caps: { principalProven: true },
    payload: '{"offer":"…"}',
    ...over,
  };
}

/** Runs the factory once per contract block; each test picks its own host. */
export function useStore(factory: StoreFactory): () => GatewayStore {
  let made: Awaited<ReturnType<StoreFactory>> | undefined;
  beforeAll(async () => {
    made = await factory();
  });
  afterAll(async () => {
    await made?.cleanup();
  });
  return () => {
    if (made === undefined) throw new Error("store factory has not run");
    return made.store;
  };
}

export function expectHeld(outcome: HoldOutcome): HoldRecord {
  if (!outcome.ok) {
    expect.fail(`expected a hold, got ${outcome.error.reason} ${JSON.stringify(outcome.error.basis ?? {})}`);
  }
  return outcome.value;
}

export function expectRefused(outcome: HoldOutcome, reason: string): Extract<HoldOutcome, { ok: false }> {
  if (outcome.ok)
    expect.fail(`expected ${reason}, got a hold on ${JSON.stringify(outcome.value.allocations)}`);
  expect(outcome.error.reason).toBe(reason);
  return outcome;
}

export function expectOk<T>(transition: Transition<T>): T {
  if (!transition.ok) expect.fail(`expected ok, got ${transition.error.reason}`);
  return transition.value;
}

export function expectTransitionRefused<T>(transition: Transition<T>, reason: string): void {
  if (transition.ok) expect.fail(`expected ${reason}, got ok`);
  expect(transition.error.reason).toBe(reason);
}

/** Places a hold and confirms it into a booking; returns the booking id. */
export async function book(store: GatewayStore, request: PlaceHoldRequest): Promise<string> {
  const hold = expectHeld(await store.placeHold(request));
  const begun = expectOk(await store.beginConfirm(request.hostId, hold.holdId, request.now, MINUTE));
  const bookingId = newId("b");
  expectOk(
    await store.completeConfirm(
      request.hostId,
      hold.holdId,
      begun.fence,
      { bookingId, payload: "{}" },
      request.now,
    ),
  );
  return bookingId;
}
