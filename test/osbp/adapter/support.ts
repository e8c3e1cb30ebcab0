/**
 * Shared rig for the adapter tests: the REAL synthetic platform (its own backend and fault
 * plan), the in-memory idempotency store, an injected clock, a logger that keeps its lines, and
 * a counting wrapper around the connector so a test can prove which upstream calls happened.
 */
import { expect } from "vitest";
import type { Connector } from "../../../src/connectors/port.js";
import {
  FaultPlan,
  MemorySyntheticBackend,
  createSyntheticConnector,
  mapleStreetAuto,
  type SyntheticConnector,
  type SyntheticScenario,
} from "../../../src/connectors/synthetic/index.js";
import { MemoryIdempotencyStore } from "../../../src/osbp/idempotency/memory.js";
import { createConnectorAdapter, type ConnectorAdapter } from "../../../src/osbp/adapter/index.js";
import {
  extractApprovalToken,
  type AdapterResult,
  type BookingCreateInput,
  type BookingMandate,
  type Customer,
  type Problem,
} from "../../../src/protocol/osbp/index.js";

export const MIN = 60_000;
export const HOUR = 60 * MIN;

export const t = (iso: string): number => {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) throw new Error(`bad time ${iso}`);
  return ms;
};

/** Sunday 18 October 2026, noon in Toronto: the Monday the tests book is still ahead. */
export const BEFORE_MONDAY = t("2026-10-18T12:00:00-04:00");
export const MONDAY = "2026-10-19";

export interface TestClock {
  now(): number;
  set(ms: number): void;
  advance(ms: number): void;
}

export function testClock(start: number): TestClock {
  let now = start;
  return { now: () => now, set: (ms) => void (now = ms), advance: (ms) => void (now += ms) };
}

/** A scenario whose every service states its payment requirement (the adapter reads absence as "unknown"). */
export function withPayment(
  s: SyntheticScenario,
  requirement: "none" | "deposit" | "full_prepay" | "unknown" = "none",
): SyntheticScenario {
  return { ...s, services: s.services.map((svc) => ({ ...svc, payment: { requirement } })) };
}

export const MAPLE = withPayment(mapleStreetAuto);

/**
 * A connector that answers some members itself and passes the rest to `inner` (methods bound to
 * it). Getters on `over` are live, so a test can compute lastUpstream per read.
 */
export function wrapConnector(inner: Connector, over: object): Connector {
  return new Proxy(inner, {
    get(target, prop) {
      if (Object.prototype.hasOwnProperty.call(over, prop)) return Reflect.get(over, prop) as unknown;
      const v = Reflect.get(target, prop, target) as unknown;
      return typeof v === "function" ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
}

/** Counts every method call that goes through the returned connector. */
export function counting(inner: Connector): { connector: Connector; count: (name?: string) => number } {
  const counts = new Map<string, number>();
  const connector = new Proxy(inner, {
    get(target, prop) {
      const v = Reflect.get(target, prop, target) as unknown;
      if (typeof v !== "function" || typeof prop !== "string") return v;
      return (...args: unknown[]) => {
        counts.set(prop, (counts.get(prop) ?? 0) + 1);
        return (v as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return {
    connector,
    count: (name) =>
      name === undefined ? [...counts.values()].reduce((a, b) => a + b, 0) : (counts.get(name) ?? 0),
  };
}

export interface Rig {
  adapter: ConnectorAdapter;
  synthetic: SyntheticConnector;
  backend: MemorySyntheticBackend;
  faults: FaultPlan;
  clock: TestClock;
  idempotency: MemoryIdempotencyStore;
  /** Calls that reached the connector the adapter holds, by method (all methods when omitted). */
  count: (name?: string) => number;
  warnings: string[];
  errors: string[];
  /** Appointments that occupy time on the platform (cancelled ones do not). */
  appointments: () => Promise<number>;
}

export function rig(
  opts: {
    scenario?: SyntheticScenario;
    start?: number;
    wrap?: (c: SyntheticConnector) => Connector;
    defaults?: { serviceId?: string; scheduleId?: string };
    catalogTtlMs?: number;
  } = {},
): Rig {
  const scenario = opts.scenario ?? MAPLE;
  const clock = testClock(opts.start ?? BEFORE_MONDAY);
  const backend = new MemorySyntheticBackend();
  const faults = new FaultPlan();
  const synthetic = createSyntheticConnector({ scenario, clock, backend, faults });
  const { connector, count } = counting(opts.wrap === undefined ? synthetic : opts.wrap(synthetic));
  const warnings: string[] = [];
  const errors: string[] = [];
  const idempotency = new MemoryIdempotencyStore();
  const adapter = createConnectorAdapter({
    connector,
    idempotency,
    clock,
    logger: { warn: (l) => void warnings.push(l), error: (l) => void errors.push(l) },
    ...(opts.defaults === undefined ? {} : { defaults: opts.defaults }),
    ...(opts.catalogTtlMs === undefined ? {} : { catalogTtlMs: opts.catalogTtlMs }),
  });
  return {
    adapter,
    synthetic,
    backend,
    faults,
    clock,
    idempotency,
    count,
    warnings,
    errors,
    appointments: async () =>
      (await backend.read(scenario.organization.id, { range: { start: 0, end: 2 ** 52 } })).occupying.length,
  };
}

export const JANE: Customer = {
  id: "cust_1",
  display_name: "Jane Customer",
  given_name: "Jane",
  family_name: "Customer",
  phone: "+15555550100",
  email: "jane@example.com",
};

export function mandate(over: Partial<BookingMandate> = {}): BookingMandate {
  return {
    id: "mnd_test_1",
    expires_at: "2026-12-31T23:59:59Z",
    allowed_actions: ["booking.create"],
    organization_id: "maple-street-auto",
    earliest_start: "2026-10-19T08:00:00",
    latest_end: "2026-10-19T18:00:00",
    max_price: { amount_minor: 10_000, currency: "CAD" },
    ...over,
  };
}

export function createInput(over: Partial<BookingCreateInput> = {}): BookingCreateInput {
  return {
    mandate: mandate(),
    idempotency_key: "idem_1",
    service_id: "oil-change",
    schedule_id: "maple-street-auto",
    provider_id: "tech-alex",
    date: MONDAY,
    time: "10:00",
    customer: JANE,
    ...over,
  };
}

/** An adapter result or a connector result. */
type Outcome<T> = { readonly ok: true; readonly value: T } | { readonly ok: false };

export function valueOf<T>(r: Outcome<T>): T {
  if (!r.ok) throw new Error(`expected ok, got ${JSON.stringify(r)}`);
  return r.value;
}

export function problemOf(r: AdapterResult<unknown>, code: string): Problem {
  if (r.ok) throw new Error(`expected problem ${code}, got ${JSON.stringify(r.value)}`);
  expect(r.problem.code, r.problem.message).toBe(code);
  return r.problem;
}

/** The preflight: requires_user_confirmation with a token; returns the approved retry input. */
export async function approve(
  adapter: ConnectorAdapter,
  input: BookingCreateInput,
): Promise<BookingCreateInput> {
  const p = problemOf(await adapter.createBooking(input), "requires_user_confirmation");
  expect(p.retryable).toBe(true);
  const token = extractApprovalToken(p.message);
  if (token === undefined) throw new Error(`no token in ${p.message}`);
  return { ...input, approval: { confirmed: true, token } };
}
