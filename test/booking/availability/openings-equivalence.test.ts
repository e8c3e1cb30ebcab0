/**
 * The fast availability path (openings.ts over SlotPlanner, AllocationTest, UnitsInUse) gives
 * exactly the answers of the reference (reference.ts: the path as it was, planSlot and
 * decideAllocation per start), over randomized hosts, upstream slots and occupancy: plans
 * compared whole (start, end, interval, requirements), and the formatted times of the view.
 *
 * The occupancy comes either from a MemoryHoldStore where random holds were placed and busy
 * blocks laid (what a host really has), or from a store that answers arbitrary entries,
 * including ones no store writes (overlapping beyond capacity, empty, reversed, of no or
 * negative units), so the fast path's fallbacks are exercised too.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { BookingDeps, HostConfig, HostRuntime, ServiceRules } from "../../../src/booking/api.js";
import { openings, type OccupancyMap, type OpeningsQuery } from "../../../src/booking/availability/index.js";
import { planSlot, type ServiceLookup, type SlotPlan } from "../../../src/booking/holds/index.js";
import { slotAt } from "../../../src/edges/schcp/slot.js";
import { instantFormatter } from "../../../src/booking/availability/instant-format.js";
import { spanZoneView } from "../../../src/booking/rules/index.js";
import type { WeeklyHours } from "../../../src/calendar/index.js";
import type { Catalog, CatalogResource, CatalogService, UpstreamSlot } from "../../../src/connectors/port.js";
import { MemoryHoldStore } from "../../../src/holds/memory/memory-store.js";
import type { GatewayStore, OccupancyEntry, Requirement } from "../../../src/holds/port.js";
import { ok } from "../../../src/protocol/result.js";
import { formatInstant } from "../../../src/protocol/time/index.js";
import { at, DAY, hostConfig, mapleCatalog, MIN, runtime as baseRuntime } from "../holds/support.js";
import { referenceOpenings, referencePlanSlot, referenceSlotAt } from "./reference.js";

const ZONES = ["America/Toronto", "Europe/London", "Australia/Lord_Howe", "Asia/Kathmandu", "UTC"];
/** Clocks near DST changes (Toronto 1 Nov 2026, London 25 Oct 2026, Lord Howe 4 Oct 2026) and away. */
const NOWS = [at("2026-10-13T21:00:00Z"), at("2026-10-30T10:07:00Z"), at("2026-10-02T23:00:00Z")];
const TYPES = ["bay", "tech", "room"];
const days = (ds: number[], open: string, close: string): WeeklyHours =>
  ds.map((d) => ({ day: d as 1, open, close }));
const SCHEDULES: WeeklyHours[] = [
  days([1, 2, 3, 4, 5], "09:00", "17:00"),
  [...days([1, 2, 3, 4, 5], "08:00", "18:00"), ...days([6], "09:00", "14:00")],
  days([1, 2, 3, 4, 5, 6, 7], "22:00", "02:00"),
  days([1, 2, 3, 4, 5, 6, 7], "00:00", "24:00"),
  [...days([1, 2, 4, 5], "09:00", "12:00"), ...days([1, 2, 4, 5], "13:00", "17:30")],
];

/** null three times in four. */
const sometimes = <T>(arb: fc.Arbitrary<T>): fc.Arbitrary<T | null> =>
  fc.oneof({ arbitrary: fc.constant(null), weight: 3 }, { arbitrary: arb, weight: 1 });

const resourceArb = fc.record({
  type: fc.constantFrom(0, 0, 0, 1, 1, 2),
  capacity: fc.integer({ min: 1, max: 3 }),
  schedule: fc.integer({ min: 0, max: SCHEDULES.length - 1 }),
  /** A copy of the schedule (same hours, another object) rather than the shared one. */
  copy: fc.boolean(),
  /** Reuse the previous resource's id (a catalog should not, but the rule must not care). */
  sameId: fc.integer({ min: 0, max: 19 }).map((n) => n === 0),
});

const needArb = fc.record({ type: fc.constantFrom(0, 0, 1), combine: fc.integer({ min: 0, max: 4 }) });
const serviceArb = fc.record({
  duration: fc.oneof(
    fc.constant("open" as const),
    fc.integer({ min: 1, max: 8 }).map((n) => n * 15 * MIN),
  ),
  buffer: fc.constantFrom(0, 15 * MIN),
  setAside: fc.oneof(
    fc.constant("until_close" as const),
    fc.integer({ min: 1, max: 40 }).map((n) => n * 15 * MIN),
  ),
  requires: fc.oneof(
    { arbitrary: fc.array(needArb, { minLength: 1, maxLength: 1 }), weight: 3 },
    fc.array(needArb, { minLength: 2, maxLength: 2 }),
  ),
});

const policyArb = fc.record({
  reserve: sometimes(
    fc.record({
      type: fc.integer({ min: 0, max: 2 }),
      keep: fc.integer({ min: 0, max: 2 }),
      days: sometimes(fc.subarray([1, 2, 3, 4, 5, 6, 7], { minLength: 1 })),
    }),
  ),
  minNotice: sometimes(fc.integer({ min: 0, max: 48 }).map((n) => n * 15 * MIN)),
  maxAdvance: sometimes(fc.integer({ min: 1, max: 5 }).map((n) => n * DAY)),
  opens: sometimes(
    fc.record({ daysAhead: fc.integer({ min: 0, max: 3 }), at: fc.constantFrom("09:00", "00:00") }),
  ),
});

const queryArb = fc.record({
  zone: fc.integer({ min: 0, max: ZONES.length - 1 }),
  now: fc.integer({ min: 0, max: NOWS.length - 1 }),
  from: fc.integer({ min: -6, max: 48 }).map((n) => n * 60 * MIN),
  length: fc.integer({ min: 1, max: 96 }).map((n) => n * 60 * MIN),
  party: fc.constantFrom(1, 1, 1, 2, 3, 4),
  chosen: sometimes(fc.integer({ min: 0, max: 5 })),
  grid: fc.boolean(),
  limit: sometimes(fc.integer({ min: 1, max: 40 })),
});

/**
 * Upstream slots on a 5-minute grid over the query and an hour either side, drawn from a seed:
 * in order and once each (as a calendar host answers), or shuffled with repeats and slots of
 * another service; each names some of the catalog's resources (and now and then an unknown one).
 */
const slotsArb = fc.record({
  seed: fc.integer({ min: 1, max: 2 ** 31 - 1 }),
  density: fc.constantFrom(0.2, 0.6, 1),
  freeness: fc.constantFrom(0.3, 0.7, 1),
  ordered: fc.boolean(),
});

const entryArb = fc.record({
  resource: fc.integer({ min: 0, max: 6 }),
  at: fc.integer({ min: -200, max: 1500 }),
  length: fc.oneof(fc.integer({ min: 1, max: 48 }), fc.constantFrom(0, -2)),
  units: fc.oneof(fc.integer({ min: 1, max: 3 }), fc.constantFrom(Number.POSITIVE_INFINITY, 0, -1)),
  agent: fc.boolean(),
});

const holdArb = fc.record({
  at: fc.integer({ min: -20, max: 1300 }),
  length: fc.integer({ min: 1, max: 40 }),
  needs: fc.array(
    fc.record({
      type: fc.integer({ min: 0, max: 2 }),
      units: fc.integer({ min: 1, max: 3 }),
      combine: fc.boolean(),
    }),
    {
      minLength: 1,
      maxLength: 2,
    },
  ),
});

const busyArb = fc.record({
  resource: fc.integer({ min: 0, max: 5 }),
  at: fc.integer({ min: -200, max: 1500 }),
  length: fc.integer({ min: 1, max: 30 }),
});

const caseArb = fc.record({
  resources: fc.array(resourceArb, { minLength: 1, maxLength: 6 }),
  service: serviceArb,
  policy: policyArb,
  query: queryArb,
  slots: slotsArb,
  real: fc.boolean(),
  entries: fc.array(entryArb, { maxLength: 60 }),
  holds: fc.array(holdArb, { maxLength: 25 }),
  busy: fc.array(busyArb, { maxLength: 40 }),
});
type Case = typeof caseArb extends fc.Arbitrary<infer T> ? T : never;

const STEP = 5 * MIN;

/** mulberry32: the slots of a case, from its seed. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function catalogOf(c: Case): Catalog {
  const resources: CatalogResource[] = [];
  c.resources.forEach((r, i) => {
    const id = r.sameId && i > 0 ? resources[i - 1]!.id : `r${i}`;
    const schedule = SCHEDULES[r.schedule]!;
    resources.push({
      id,
      type: TYPES[i === 0 ? 0 : r.type]!,
      name: id,
      capacity: r.capacity,
      hours: r.copy ? schedule.map((p) => ({ ...p })) : schedule,
    });
  });
  const { service: s } = c;
  const service: CatalogService = {
    id: "svc",
    name: "Service",
    duration: s.duration,
    bufferAfterMs: s.buffer,
    ...(s.duration === "open" && { setAside: s.setAside }),
    requires: s.requires.map((r) => ({
      resourceType: TYPES[r.type]!,
      ...(r.combine === 0 && { combine: true }),
    })),
  };
  return {
    organization: { id: "org", name: "Org", timezone: ZONES[c.query.zone]!, currency: "CAD" },
    services: [service],
    resources,
    taxes: [],
  };
}

function configOf(c: Case, base: HostConfig): HostConfig {
  const { reserve, minNotice, maxAdvance, opens } = c.policy;
  return {
    ...base,
    timezone: ZONES[c.query.zone]!,
    policies: {
      ...base.policies,
      ...(reserve !== null && {
        walkInReserve: [
          {
            resourceType: TYPES[reserve.type]!,
            keep: reserve.keep,
            ...(reserve.days !== null && { days: reserve.days }),
          },
        ],
      }),
    },
    services: [
      {
        serviceId: "svc",
        ...(minNotice !== null && { minNoticeMs: minNotice }),
        ...(maxAdvance !== null && { maxAdvanceMs: maxAdvance }),
        ...(opens !== null && { opens }),
      },
    ],
  };
}

function hostOf(c: Case, first: number): HostRuntime {
  const catalog = catalogOf(c);
  const base = baseRuntime(configOf(c, hostConfig()), catalog);
  const ids = catalog.resources.map((r) => r.id);
  const { seed, density, freeness, ordered } = c.slots;
  const random = prng(seed);
  const slots: UpstreamSlot[] = [];
  for (let t = first - 60 * MIN; t < first + c.query.length + 60 * MIN; t += STEP) {
    if (random() >= density) continue;
    const resourceIds = ids.filter(() => random() < freeness);
    if (random() < 0.05) resourceIds.push("ghost");
    slots.push({ serviceId: "svc", start: t, resourceIds });
    if (!ordered && random() < 0.1)
      slots.push({ serviceId: random() < 0.5 ? "svc" : "another", start: t, resourceIds: ids });
  }
  if (!ordered) slots.sort(() => random() - 0.5);
  return { ...base, connector: { ...base.connector, slots: { find: () => Promise.resolve(ok(slots)) } } };
}

/** A store answering the same arbitrary occupancy to every read. */
function arbitraryStore(c: Case, host: HostRuntime, first: number): GatewayStore {
  const ids = [...host.catalog.resources.map((r) => r.id), "ghost"];
  const map = new Map<string, OccupancyEntry[]>();
  for (const e of c.entries) {
    const id = ids[e.resource % ids.length]!;
    const start = first + e.at * 15 * MIN;
    const entry = { start, end: start + e.length * 15 * MIN, units: e.units, agent: e.agent };
    map.set(id, [...(map.get(id) ?? []), entry]);
  }
  const store = new MemoryHoldStore();
  store.listOccupancy = (_h, resourceIds) =>
    Promise.resolve<OccupancyMap>(new Map(resourceIds.map((id) => [id, map.get(id) ?? []])));
  return store;
}

/** A MemoryHoldStore with the case's holds placed (where the store grants them) and busy laid. */
async function realStore(c: Case, host: HostRuntime, first: number, now: number): Promise<GatewayStore> {
  const store = new MemoryHoldStore();
  const hostId = host.config.id;
  const { resources } = host.catalog;
  for (const [i, b] of c.busy.entries()) {
    const r = resources[b.resource % resources.length]!;
    const start = first + b.at * 15 * MIN;
    await store.replaceBusy(hostId, r.id, `cal-${i}`, [{ start, end: start + b.length * 15 * MIN }]);
  }
  for (const [i, h] of c.holds.entries()) {
    const start = first + h.at * 15 * MIN;
    const requirements = h.needs.map((n): Requirement => ({
      type: TYPES[n.type]!,
      candidates: resources
        .filter((r) => r.type === TYPES[n.type])
        .map((r) => ({ id: r.id, capacity: r.capacity })),
      units: n.units,
      ...(n.combine && { combine: true }),
    }));
    await store.placeHold({
      hostId,
      holdId: `h${i}`,
      serviceId: "svc",
      interval: { start, end: start + h.length * 15 * MIN },
      requirements,
      ttlMs: 30 * DAY,
      now,
      owner: { agentKey: `agent-${i % 3}`, principal: null, mandates: [] },
      caps: { principalProven: true },
      payload: "{}",
    });
  }
  return store;
}

async function bothWays(c: Case) {
  const now = NOWS[c.query.now]!;
  const first = now + c.query.from;
  const host = hostOf(c, first);
  const store = c.real ? await realStore(c, host, first, now) : arbitraryStore(c, host, first);
  const deps = { store } as unknown as BookingDeps;
  const service = host.catalog.services[0]!;
  const found: ServiceLookup = { service, rules: host.config.services[0] };
  const chosen = c.query.chosen === null ? undefined : host.catalog.resources[c.query.chosen];
  const step = 30 * MIN;
  const q: OpeningsQuery = {
    range: { start: first, end: first + c.query.length },
    partySize: c.query.party,
    now,
    ...(c.query.grid && { onGrid: (s: number) => (((s - first) % step) + step) % step === 0 }),
    ...(c.query.limit !== null && { limit: c.query.limit }),
    ...(chosen !== undefined && { resourceId: chosen.id }),
  };
  const fast = await openings(deps, host, found, q);
  if (!fast.ok) throw new Error(fast.error.message);
  const reference = await referenceOpenings(deps, host, found, q);
  return { fast: fast.value, reference, zone: host.config.timezone };
}

/** A plan as a plain object (openings works a plan's requirements out only when read). */
const plain = (p: SlotPlan): SlotPlan => ({
  start: p.start,
  ...(p.end !== undefined && { end: p.end }),
  interval: p.interval,
  requirements: p.requirements,
});

describe("availability: the fast path answers as the reference does", () => {
  it("gives the same plans, in the same order, for random hosts, slots, holds and busy time (property)", async () => {
    let offered = 0;
    let refused = 0;
    await fc.assert(
      fc.asyncProperty(caseArb, async (c) => {
        const { fast, reference, zone } = await bothWays(c);
        expect(fast.plans.map(plain)).toStrictEqual(reference);
        for (const p of fast.plans) {
          expect(fast.view.format(p.start)).toBe(formatInstant(p.start, zone));
          if (p.end !== undefined) expect(fast.view.format(p.end)).toBe(formatInstant(p.end, zone));
        }
        offered += fast.plans.length;
        refused += fast.plans.length === 0 ? 1 : 0;
      }),
      { numRuns: 400 },
    );
    // Many cases offer time (about a third; typically 4,000-8,000 plans in all): the comparison
    // is not mostly between two empty answers.
    expect(offered).toBeGreaterThan(2500);
    expect(refused).toBeLessThan(330);
  }, 120_000);

  it("plans a single start as the reference planSlot does (holds use planSlot)", () => {
    fc.assert(
      fc.property(caseArb, fc.integer({ min: 0, max: 400 }), fc.boolean(), (c, k, everyFree) => {
        const now = NOWS[c.query.now]!;
        const host = hostOf(c, now);
        const service = host.catalog.services[0]!;
        const start = now + k * STEP;
        const free = everyFree
          ? undefined
          : new Set(host.catalog.resources.filter((_, i) => (i + k) % 3 !== 0).map((r) => r.id));
        const chosen = c.query.chosen === null ? undefined : host.catalog.resources[c.query.chosen];
        const options = {
          partySize: c.query.party,
          ...(free !== undefined && { free }),
          ...(chosen !== undefined && { resourceId: chosen.id }),
        };
        expect(planSlot(host, service, start, options)).toStrictEqual(
          referencePlanSlot(host, service, start, options),
        );
      }),
      { numRuns: 400 },
    );
  });

  it("writes each opening's wire slot as the reference slotAt does, priced or not, open-ended or not (property)", () => {
    const rules: ServiceRules = {
      serviceId: "oil-change",
      surcharges: [
        { when: "weekend", label: "Weekend", amount: { minor: 1000, currency: "CAD" } },
        { when: "after_hours", label: "Evening", percent: "10", after: "17:00" },
      ],
    };
    const host = baseRuntime({ ...hostConfig(), services: [rules] }, mapleCatalog());
    const now = NOWS[0]!;
    fc.assert(
      fc.property(
        fc.constantFrom(...host.catalog.services.map((s) => s.id)),
        fc.integer({ min: 0, max: 2000 }),
        fc.integer({ min: 1, max: 3 }),
        (serviceId, k, party) => {
          const service = host.catalog.services.find((s) => s.id === serviceId)!;
          const found: ServiceLookup = {
            service,
            rules: host.config.services.find((r) => r.serviceId === serviceId),
          };
          const start = now + k * STEP;
          const view = {
            ...spanZoneView(host.config.timezone),
            format: instantFormatter(host.config.timezone),
          };
          const fast = slotAt(host, found, start, party, now, view);
          expect(JSON.stringify(fast)).toBe(JSON.stringify(referenceSlotAt(host, found, start, party, now)));
        },
      ),
      { numRuns: 500 },
    );
  });
});
