/**
 * The availability path as it was before it was made fast (commit b294c5d), kept as the
 * reference the fast path must agree with: planSlot per start (a fresh plan, candidates
 * filtered resource by resource), the store's occupancy as sorted slices, and
 * decideAllocation itself on every candidate. Only src functions that did not change are
 * imported (the allocation rule, the booking-window rules, the reserve, the zone view,
 * pricing).
 */
import type { CatalogService, UpstreamSlot } from "../../../src/connectors/port.js";
import { HoursIndex, type Interval } from "../../../src/calendar/index.js";
import {
  decideAllocation,
  type AgentOccupancy,
  type Occupancy,
  type OccupancyOf,
} from "../../../src/holds/allocation.js";
import type { Requirement } from "../../../src/holds/port.js";
import type { WorkingResource } from "../../../src/holds/working-hours.js";
import type { BookingDeps, HostRuntime } from "../../../src/booking/api.js";
import type { OccupancyMap, OpeningsQuery } from "../../../src/booking/availability/index.js";
import { MAX_CANDIDATE_STARTS } from "../../../src/booking/availability/index.js";
import { candidateResources, reservesAt, workingResources } from "../../../src/booking/holds/index.js";
import type { ServiceLookup, SlotPlan } from "../../../src/booking/holds/index.js";
import { checkWhen, spanZoneView, zoneView } from "../../../src/booking/rules/index.js";
import { priceOffer } from "../../../src/booking/pricing/index.js";
import { toSchcpMoney } from "../../../src/protocol/money/index.js";
import type { Slot } from "../../../src/protocol/schcp/types.js";

const DAY = 86_400_000;

function hoursIndexFor(runtime: HostRuntime, service: CatalogService, first: number, last: number) {
  const longest =
    service.duration === "open"
      ? typeof service.setAside === "number"
        ? service.setAside
        : 8 * DAY
      : service.duration + service.bufferAfterMs;
  const span = { start: first, end: last + longest };
  return new HoursIndex(spanZoneView(runtime.catalog.organization.timezone, span), span);
}

function unitsFor(type: string, combine: boolean, resources: readonly WorkingResource[], party: number) {
  if (combine) return party;
  return resources.some((r) => r.type === type && r.capacity > 1) ? party : 1;
}

function untilCloseEnd(
  service: CatalogService,
  resources: readonly WorkingResource[],
  start: number,
  hours: HoursIndex,
) {
  let end: number | undefined;
  for (const r of service.requires) {
    let latest: number | undefined;
    for (const res of resources) {
      if (res.type !== r.resourceType) continue;
      const close = hours.stretchEnd(res, start);
      if (close !== undefined && close > start && (latest === undefined || close > latest)) latest = close;
    }
    if (latest === undefined) return undefined;
    end = end === undefined ? latest : Math.min(end, latest);
  }
  return end;
}

export function referencePlanSlot(
  runtime: HostRuntime,
  service: CatalogService,
  start: number,
  options: { partySize: number; free?: ReadonlySet<string>; resourceId?: string; hours?: HoursIndex },
): SlotPlan | undefined {
  const allowed = new Set(candidateResources(runtime, service, options.resourceId).map((r) => r.id));
  const all = workingResources(runtime);
  const hours = options.hours ?? hoursIndexFor(runtime, service, start, start);
  const resources = all.filter(
    (r) => allowed.has(r.id) && (options.free === undefined || options.free.has(r.id)),
  );
  let interval: Interval;
  let end: number | undefined;
  if (service.duration === "open") {
    const aside = service.setAside;
    const until = typeof aside === "number" ? start + aside : untilCloseEnd(service, resources, start, hours);
    if (until === undefined || until <= start) return undefined;
    interval = { start, end: until };
  } else {
    end = start + service.duration;
    interval = { start, end: end + service.bufferAfterMs };
  }
  const requirements = service.requires.map((r): Requirement => {
    const candidates = resources
      .filter((res) => res.type === r.resourceType && hours.covers(res, interval))
      .map((res) => ({ id: res.id, capacity: res.capacity }));
    const units = unitsFor(r.resourceType, r.combine === true, all, options.partySize);
    return r.combine === true
      ? { type: r.resourceType, candidates, units, combine: true }
      : { type: r.resourceType, candidates, units };
  });
  return { start, ...(end !== undefined && { end }), interval, requirements };
}

function allocationViews(occupancy: OccupancyMap, typeOf: (resourceId: string) => string | undefined) {
  const agent: AgentOccupancy[] = [];
  for (const [resourceId, entries] of occupancy) {
    const type = typeOf(resourceId);
    if (type === undefined) continue;
    for (const e of entries) if (e.agent) agent.push({ resourceId, type, start: e.start, end: e.end });
  }
  const byId = new Map<string, { entries: Occupancy[]; longest: number }>();
  for (const [id, entries] of occupancy) {
    const mapped = entries
      .map((e): Occupancy => ({ start: e.start, end: e.end, units: e.units }))
      .sort((a, b) => a.start - b.start);
    byId.set(id, { entries: mapped, longest: mapped.reduce((m, e) => Math.max(m, e.end - e.start), 0) });
  }
  const lower = (xs: readonly Occupancy[], t: number) => {
    let lo = 0;
    let hi = xs.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (xs[mid]!.start < t) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  const near =
    (i: Interval): OccupancyOf =>
    (c) => {
      const r = byId.get(c.id);
      if (r === undefined) return [];
      return r.entries.slice(lower(r.entries, i.start - r.longest), lower(r.entries, i.end));
    };
  return { agent, near };
}

function startsOf(slots: readonly UpstreamSlot[], serviceId: string): UpstreamSlot[] {
  const seen = new Set<number>();
  return slots
    .filter((s) => s.serviceId === serviceId)
    .sort((a, b) => a.start - b.start)
    .filter((s) => (seen.has(s.start) ? false : (seen.add(s.start), true)));
}

/** The reference openings: its plans, or the upstream's error. */
export async function referenceOpenings(
  deps: BookingDeps,
  runtime: HostRuntime,
  found: ServiceLookup,
  q: OpeningsQuery,
): Promise<readonly SlotPlan[]> {
  const { config } = runtime;
  const { service, rules } = found;
  const { start: first, end: last } = q.range;
  const length = service.duration === "open" ? 0 : service.duration;
  const view = spanZoneView(config.timezone, { start: first, end: last + Math.max(length, DAY) });
  if (first >= last) return [];
  const upstream = await runtime.connector.slots.find({
    serviceId: service.id,
    range: { start: first, end: last },
    partySize: q.partySize,
    ...(q.resourceId !== undefined && { resourceIds: [q.resourceId] }),
  });
  if (!upstream.ok) throw new Error(upstream.error.message);
  const hours = hoursIndexFor(runtime, service, first, last);
  const candidates: SlotPlan[] = [];
  for (const slot of startsOf(upstream.value, service.id)) {
    if (slot.start < first || slot.start >= last || (q.onGrid !== undefined && !q.onGrid(slot.start)))
      continue;
    if (checkWhen(rules, config.policies, view, slot.start, q.now) !== undefined) continue;
    const plan = referencePlanSlot(runtime, service, slot.start, {
      partySize: q.partySize,
      free: new Set(slot.resourceIds),
      hours,
      ...(q.resourceId !== undefined && { resourceId: q.resourceId }),
    });
    if (plan !== undefined) candidates.push(plan);
    if (candidates.length >= MAX_CANDIDATE_STARTS) break;
  }
  if (candidates.length === 0) return [];
  const occupancy = await deps.store.listOccupancy(
    config.id,
    candidateResources(runtime, service, q.resourceId).map((r) => r.id),
    {
      start: Math.min(...candidates.map((p) => p.interval.start)),
      end: Math.max(...candidates.map((p) => p.interval.end)),
    },
    q.now,
  );
  const typeOf = (id: string) => runtime.catalog.resources.find((r) => r.id === id)?.type;
  const { near, agent } = allocationViews(occupancy, typeOf);
  const limit = Math.min(q.limit ?? MAX_CANDIDATE_STARTS, MAX_CANDIDATE_STARTS);
  const plans: SlotPlan[] = [];
  for (const plan of candidates) {
    if (plans.length >= limit) break;
    const decision = decideAllocation(
      plan.requirements,
      plan.interval,
      near(plan.interval),
      reservesAt(runtime, plan.start, view),
      agent,
    );
    if (decision.ok) plans.push(plan);
  }
  return plans;
}

/** slotAt as it was: the wire slot of a start, priced at that time. */
export function referenceSlotAt(
  runtime: HostRuntime,
  found: ServiceLookup,
  start: number,
  partySize: number,
  now: number,
): Slot {
  const { service, rules } = found;
  const tz = runtime.config.timezone;
  const view = zoneView(tz);
  const priced = priceOffer(
    service,
    rules,
    { timezone: tz, taxes: runtime.catalog.taxes, view },
    { start, partySize, now },
  );
  return {
    start: view.format(start),
    ...(service.duration === "open"
      ? { open_end: true as const }
      : { end: view.format(start + service.duration) }),
    ...(priced.price !== null &&
      priced.total !== null && { price: toSchcpMoney(priced.price), total: toSchcpMoney(priced.total) }),
  };
}
