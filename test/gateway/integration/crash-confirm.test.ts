/**
 * A Redis-backed confirm killed after each of its steps. Gateway A (real
 * Redis, its own prefix, the Redis-backed synthetic platform) takes a signed confirm over HTTP
 * and "dies" right after one step has taken effect: that step's call returns, then every later
 * store or upstream call of A fails, as if the process had been killed there. Gateway B, a
 * fresh runtime over the same Redis and the same synthetic platform, runs reconciliation once
 * the confirm's lease has run out (docs/ARCHITECTURE.md, Two-phase confirm and reconciliation: asked upstream by idempotency key, never created
 * twice). Then every booking the platform has is in B's operator list exactly once, and the
 * platform has exactly one appointment for a confirm that reached it, none for one that did not.
 *
 * The steps, in the order confirmHold runs them (src/booking/confirm/confirm.ts): fence the
 * hold (beginConfirm) -> write the confirm intent (the first completeIdempotent) -> create
 * upstream -> record the booking and its index entry (completeConfirm, one Lua script) ->
 * reputation outcomes (recordOutcome, agent then principal) -> store the idempotent answer
 * (the gate's completeIdempotent).
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RedisSyntheticBackend } from "../../../src/connectors/synthetic/index.js";
import { offerSha256 } from "../../../src/protocol/schcp/offer/index.js";
import type { SigningKey } from "../../../src/protocol/schcp/mandate/index.js";
import { startTestRedis, uniquePrefix } from "../../support/redis.js";
import type { TestRedis } from "../../support/redis.js";
import { mandateFor, newKey } from "../support/agent.js";
import { RecordingLogger } from "../support/fakes.js";
import { TestClock, agentFetch, startGateway } from "../support/gateway.js";
import type { TestGateway } from "../support/gateway.js";

/** Redis judges nonces by its own clock (SET EXAT), so the agent signs at the real date. */
const NOW = Date.now();
const LEASE_OVER_MS = 31_000; // CONFIRM_LEASE_MS (30 s) has passed

/** A weekday two or more days ahead, 17:00-20:00Z: inside both hosts' hours all year. */
function window(nowMs: number): { start: string; end: string } {
  const day = new Date(nowMs + 2 * 86_400_000);
  while (day.getUTCDay() === 0 || day.getUTCDay() === 6) day.setUTCDate(day.getUTCDate() + 1);
  const date = day.toISOString().slice(0, 10);
  return { start: `${date}T17:00:00Z`, end: `${date}T20:00:00Z` };
}
const WINDOW = window(NOW);

type Where = "store" | "upstream";
interface Step {
  readonly name: string;
  readonly where: Where;
  readonly method: string;
  /** The nth call of `method` after which the process dies. */
  readonly nth: number;
  /** Whether the upstream create had happened when the process died. */
  readonly reachedUpstream: boolean;
}

const STEPS: readonly Step[] = [
  { name: "fencing the hold", where: "store", method: "beginConfirm", nth: 1, reachedUpstream: false },
  {
    name: "writing the intent",
    where: "store",
    method: "completeIdempotent",
    nth: 1,
    reachedUpstream: false,
  },
  {
    name: "the upstream create",
    where: "upstream",
    method: "bookings.create",
    nth: 1,
    reachedUpstream: true,
  },
  { name: "recording the booking", where: "store", method: "completeConfirm", nth: 1, reachedUpstream: true },
  { name: "the agent's outcome", where: "store", method: "recordOutcome", nth: 1, reachedUpstream: true },
  { name: "the principal's outcome", where: "store", method: "recordOutcome", nth: 2, reachedUpstream: true },
  { name: "storing the answer", where: "store", method: "completeIdempotent", nth: 2, reachedUpstream: true },
];

/**
 * Kills A after `step`: the step's call completes (its effect is durable), then it and every
 * later call of A's store and connector throw. Store methods are replaced on the instance the
 * runtime's booking service holds; close() is left alone so A can still let go of Redis.
 */
function killAfter(gw: TestGateway, hostId: string, step: Step): { readonly died: () => boolean } {
  let dead = false;
  let seen = 0;
  const wrap = (target: Record<string, unknown>, where: Where, names: readonly string[], prefix = "") => {
    for (const member of names) {
      const name = `${prefix}${member}`;
      const real = target[member];
      if (typeof real !== "function" || member === "close" || member === "constructor") continue;
      target[member] = async (...args: unknown[]) => {
        if (dead) throw new Error(`killed: ${where}.${name} after the crash`);
        const value: unknown = await (real as (...a: unknown[]) => Promise<unknown>).apply(target, args);
        if (where === step.where && name === step.method && ++seen === step.nth) {
          dead = true;
          throw new Error(`killed right after ${where}.${name}`);
        }
        return value;
      };
    }
  };
  const store = gw.runtime.store as unknown as Record<string, unknown>;
  wrap(store, "store", Object.getOwnPropertyNames(Object.getPrototypeOf(store)));
  // The connector's capabilities (connectors/port.ts): every call of each is one upstream call.
  const connector = gw.runtime.hosts.get(hostId)!.connector as unknown as Record<string, unknown>;
  for (const capability of ["catalog", "slots", "bookings", "verification"]) {
    const c = connector[capability] as Record<string, unknown> | undefined;
    if (c !== undefined) wrap(c, "upstream", Object.keys(c), `${capability}.`);
  }
  return { died: () => dead };
}

let redis: TestRedis;
let dir: string;
beforeAll(async () => {
  redis = await startTestRedis();
  dir = await mkdtemp(join(tmpdir(), "gw-crash-"));
});
afterAll(async () => {
  await redis.stop();
  await rm(dir, { recursive: true, force: true });
});

interface Listed {
  readonly bookings: ReadonlyArray<{ booking: { booking_id: string; status: string; start: string } }>;
}

async function operatorList(gw: TestGateway, hostId: string): Promise<Listed["bookings"]> {
  const res = await fetch(`${gw.url}/operator/v0/${hostId}/bookings`, {
    headers: { authorization: `Bearer ${gw.runtime.operatorToken}` },
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as Listed).bookings;
}

/** Appointments the synthetic platform itself holds in the window (not cancelled), read beside the gateway. */
async function upstreamAppointments(prefix: string, organizationId: string): Promise<number> {
  const backend = await RedisSyntheticBackend.connect(redis.url, `${prefix}synthetic:`);
  try {
    const snap = await backend.read(organizationId, {
      range: { start: Date.parse(WINDOW.start), end: Date.parse(WINDOW.end) },
    });
    return snap.occupying.length;
  } finally {
    await backend.close();
  }
}

/** A's hold for the first free start of `serviceId`; the confirm body that goes with it. */
async function holdAt(
  gw: TestGateway,
  hostId: string,
  serviceId: string,
  agent: SigningKey,
  mandate: string,
) {
  const path = `/schcp/v0/${hostId}`;
  const slots = await agentFetch(gw, agent, {
    method: "POST",
    path: `${path}/availability`,
    body: { service_id: serviceId, window: WINDOW },
  });
  expect(slots.status, JSON.stringify(slots.json)).toBe(200);
  const start = (slots.json as { slots: Array<{ start: string }> }).slots[0]?.start;
  expect(start).toBeDefined();
  const hold = await agentFetch(gw, agent, {
    method: "POST",
    path: `${path}/holds`,
    mandate,
    body: { service_id: serviceId, start, idempotency_key: "hold-1" },
  });
  expect(hold.status, JSON.stringify(hold.json)).toBe(201);
  const h = hold.json as { hold_id: string; offer: string };
  return { holdId: h.hold_id, hash: offerSha256(h.offer), path, start: start ?? "" };
}

async function crashThenRestart(hostId: string, serviceId: string, step: Step) {
  const prefix = uniquePrefix("crash");
  const common = {
    dataDir: dir,
    redisUrl: redis.url,
    redisKeyPrefix: prefix,
    logger: new RecordingLogger(),
    workers: false as const,
  };
  const a = await startGateway({ ...common, clock: new TestClock(NOW) });
  let b: TestGateway | undefined;
  try {
    const agent = newKey();
    const mandate = await mandateFor({ principal: newKey(), agent, aud: hostId, nowSec: a.clock.sec });
    const { holdId, hash, path, start } = await holdAt(a, hostId, serviceId, agent, mandate);
    const organizationId = a.runtime.hosts.get(hostId)!.catalog.organization.id;
    const kill = killAfter(a, hostId, step);
    const confirm = await agentFetch(a, agent, {
      method: "POST",
      path: `${path}/holds/${holdId}/confirm`,
      mandate,
      body: { idempotency_key: "confirm-1", offer_sha256: hash },
    });
    expect(kill.died()).toBe(true);
    expect(confirm.status).toBeGreaterThanOrEqual(500);
    await a.close();

    // The restart: a fresh runtime on the same Redis and platform, once the lease is over.
    b = await startGateway({ ...common, clock: new TestClock(NOW + LEASE_OVER_MS) });
    const report = await b.runtime.service.reconcile(hostId);
    const again = await b.runtime.service.reconcile(hostId);
    return {
      b,
      holdId,
      hash,
      start,
      report,
      again,
      upstream: await upstreamAppointments(prefix, organizationId),
    };
  } catch (e) {
    await b?.close();
    throw e;
  } finally {
    await a.close();
  }
}

describe("a Redis-backed confirm killed after each step, then restarted and reconciled", () => {
  it.each(STEPS)("killed after $name", async (step) => {
    const { b, holdId, start, report, again, upstream } = await crashThenRestart(
      "maple-street-auto",
      "oil-change",
      step,
    );
    try {
      // The operator's neutral view names no offer: the booking is the one at the held start.
      const mine = (await operatorList(b, "maple-street-auto")).filter(
        (x) => Date.parse(x.booking.start) === Date.parse(start),
      );
      // Reconciliation never creates: a second run finds nothing left to do.
      expect(again).toEqual({ recorded: [], returned: [], left: [] });
      if (step.reachedUpstream) {
        expect(upstream).toBe(1);
        expect(mine).toHaveLength(1);
        expect(mine[0]?.booking.status).toBe("confirmed");
        // Only a kill between the upstream create and the record leaves work for the reconciler.
        expect(report.recorded).toHaveLength(step.method === "bookings.create" ? 1 : 0);
        if (report.recorded.length === 1) expect(report.recorded[0]).toBe(mine[0]?.booking.booking_id);
      } else {
        expect(upstream).toBe(0);
        expect(mine).toHaveLength(0);
        // Nothing was made upstream: the hold goes back to its agent (still inside its TTL).
        expect(report.returned).toEqual([holdId]);
        const hold = await b.runtime.store.getHold("maple-street-auto", holdId, b.clock.now());
        expect(hold?.state).toBe("held");
      }
    } finally {
      await b.close();
    }
  });

  it("a pending_host booking killed after its record is listed after restart, and its approval deadline still runs (§5.7)", async () => {
    const step = STEPS.find((s) => s.method === "completeConfirm")!;
    const { b, start, upstream } = await crashThenRestart("harbourview-dental", "cleaning", step);
    try {
      expect(upstream).toBe(1);
      const mine = (await operatorList(b, "harbourview-dental")).filter(
        (x) => Date.parse(x.booking.start) === Date.parse(start),
      );
      expect(mine.map((x) => x.booking.status)).toEqual(["pending_host"]);
      // Past any approval timeout the deadline runner, which reads the same index, expires it.
      b.clock.advance(6 * 86_400_000);
      const deadlines = await b.runtime.service.expireOverdue("harbourview-dental");
      expect(deadlines.expired).toEqual([mine[0]?.booking.booking_id]);
    } finally {
      await b.close();
    }
  });
});
