/**
 * Shared rig for the adapter tests: the REAL synthetic platform (its own backend and fault
 * plan), the in-memory idempotency store, an injected clock, a logger that keeps its lines, and
 * a counting wrapper around the connector so a test can prove which upstream calls happened.
 */
import { expect } from "vitest";
import type { Connector } from "../../../../src/connectors/port.js";
import {
  FaultPlan,
  MemorySyntheticBackend,
  createSyntheticConnector,
  mapleStreetAuto,
  type SyntheticConnector,
  type SyntheticScenario,
} from "../../../../src/connectors/synthetic/index.js";
import { MemoryIdempotencyStore } from "../../../../src/edges/osbp/idempotency/memory.js";
import { createCoreAdapter, type CoreAdapter } from "../../../../src/edges/osbp/adapter/index.js";
import { inProcessCore } from "../../../../src/gateway/in-process-core.js";
import type { BookingService } from "../../../../src/gateway/booking-service.js";
import type { HostConfig } from "../../../../src/booking/api.js";
import { parseHostsConfig } from "../../../../src/booking/hosts/index.js";
import {
  extractApprovalToken,
  type AdapterResult,
  type BookingCreateInput,
  type BookingMandate,
  type Customer,
  type Problem,
} from "../../../../src/protocol/osbp/index.js";

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

/** The capability method behind each operation name the tests use (the synthetic platform's). */
const OPERATIONS: Readonly<Record<string, readonly [capability: string, method: string]>> = {
  catalog: ["catalog", "read"],
  findAvailability: ["slots", "find"],
  createBooking: ["bookings", "create"],
  getBooking: ["bookings", "get"],
  findBookingByIdempotencyKey: ["bookings", "findByIdempotencyKey"],
  moveBooking: ["bookings", "move"],
  cancelBooking: ["bookings", "cancel"],
  setStatus: ["bookings", "setStatus"],
  sendVerification: ["verification", "send"],
  verifyCode: ["verification", "verify"],
};

/**
 * A connector that answers some members itself and passes the rest to `inner`. `over` names
 * top-level members (kind, a whole capability) or operations by name (createBooking →
 * bookings.create); getters on `over` are live.
 */
export function wrapConnector(inner: Connector, over: object): Connector {
  const byCapability = new Map<string, Record<string, unknown>>();
  for (const name of Object.keys(over)) {
    const op = OPERATIONS[name];
    // "catalog" names both the capability and its read: a function over it is the read.
    if (op === undefined || typeof Reflect.get(over, name) !== "function") continue;
    const [capability, method] = op;
    const methods = byCapability.get(capability) ?? {};
    methods[method] = Reflect.get(over, name) as unknown;
    byCapability.set(capability, methods);
  }
  return new Proxy(inner, {
    get(target, prop) {
      if (typeof prop === "string" && byCapability.has(prop)) {
        const base = Reflect.get(target, prop, target) as object | undefined;
        return { ...(base ?? {}), ...byCapability.get(prop) };
      }
      if (Object.prototype.hasOwnProperty.call(over, prop)) return Reflect.get(over, prop) as unknown;
      return Reflect.get(target, prop, target) as unknown;
    },
  });
}

/** Counts every capability call that goes through the returned connector, by operation name. */
export function counting(inner: Connector): {
  connector: Connector;
  count: (name?: string) => number;
  reset: () => void;
} {
  const counts = new Map<string, number>();
  const nameOf = new Map(Object.entries(OPERATIONS).map(([name, [c, m]]) => [`${c}.${m}`, name]));
  const connector = new Proxy(inner, {
    get(target, prop) {
      const capability = Reflect.get(target, prop, target) as unknown;
      if (typeof prop !== "string" || typeof capability !== "object" || capability === null)
        return capability;
      return new Proxy(capability, {
        get(cap, method) {
          const v = Reflect.get(cap, method, cap) as unknown;
          if (typeof v !== "function" || typeof method !== "string") return v;
          const name = nameOf.get(`${prop}.${method}`) ?? `${prop}.${method}`;
          return (...args: unknown[]) => {
            counts.set(name, (counts.get(name) ?? 0) + 1);
            return (v as (...a: unknown[]) => unknown).apply(cap, args);
          };
        },
      });
    },
  });
  return {
    connector,
    reset: () => counts.clear(),
    count: (name) =>
      name === undefined ? [...counts.values()].reduce((a, b) => a + b, 0) : (counts.get(name) ?? 0),
  };
}

/**
 * The host the adapter serves, for a scenario: the platform's organization with the gateway's
 * default policies (instant confirmation), unless a test gives its own policies.
 */
export function hostConfigFor(
  scenario: SyntheticScenario,
  policies: Record<string, unknown> = {},
  extra: Record<string, unknown> = {},
): HostConfig {
  const parsed = parseHostsConfig({
    hosts: [
      {
        id: scenario.organization.id,
        name: scenario.organization.name,
        kind: "business",
        // A platform may report a zone that is not IANA (the Time Discipline tests); the host's
        // own configured zone is always one.
        timezone: isIanaZone(scenario.organization.timezone) ? scenario.organization.timezone : "UTC",
        domain: null,
        connector: { type: "synthetic", settings: {} },
        policies: { confirmation: "instant", retention: "P365D", ...policies },
        services: [],
        ...extra,
      },
    ],
  });
  if (!parsed.ok) throw new Error(parsed.error.message);
  const [host] = parsed.value;
  if (host === undefined) throw new Error("no host parsed");
  return host;
}

function isIanaZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat("en", { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

export interface Rig {
  adapter: CoreAdapter;
  /** The booking core behind the adapter (the gateway's own, in process). */
  core: Promise<BookingService>;
  hostId: string;
  /** The platform's id of a booking the core made (receipt.booking_id is the gateway's). */
  upstreamIdOf: (bookingId: string) => Promise<string>;
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
    /** Host policies over the defaults (e.g. { confirmation: "host_approval" }). */
    policies?: Record<string, unknown>;
    /** The host config's location (address, latitude, longitude). */
    location?: Record<string, unknown>;
  } = {},
): Rig {
  const scenario = opts.scenario ?? MAPLE;
  const clock = testClock(opts.start ?? BEFORE_MONDAY);
  const backend = new MemorySyntheticBackend();
  const faults = new FaultPlan();
  const synthetic = createSyntheticConnector({ scenario, clock, backend, faults });
  const { connector, count, reset } = counting(opts.wrap === undefined ? synthetic : opts.wrap(synthetic));
  const warnings: string[] = [];
  const errors: string[] = [];
  const idempotency = new MemoryIdempotencyStore();
  const config = hostConfigFor(
    scenario,
    opts.policies,
    opts.location === undefined ? {} : { location: opts.location },
  );
  // The core reads the catalog once as it starts; calls are counted from the first tool call on.
  const core = inProcessCore(config, connector, clock).then((c) => (reset(), c));
  const adapter = createCoreAdapter({
    core,
    hostId: config.id,
    platform: connector.platform,
    idempotency,
    clock,
    logger: { warn: (l) => void warnings.push(l), error: (l) => void errors.push(l) },
    ...(opts.defaults === undefined ? {} : { defaults: opts.defaults }),
  });
  return {
    adapter,
    core,
    hostId: config.id,
    upstreamIdOf: async (bookingId) => {
      const read = await (await core).readBooking(config.id, bookingId);
      if (!read.ok) throw new Error(`no booking ${bookingId}: ${read.error.message}`);
      return read.value.state.upstreamId;
    },
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
export async function approve(adapter: CoreAdapter, input: BookingCreateInput): Promise<BookingCreateInput> {
  const p = problemOf(await adapter.createBooking(input), "requires_user_confirmation");
  expect(p.retryable).toBe(true);
  const token = extractApprovalToken(p.message);
  if (token === undefined) throw new Error(`no token in ${p.message}`);
  return { ...input, approval: { confirmed: true, token } };
}
