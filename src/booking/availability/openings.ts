/**
 * openings: the starts the core would grant a hold at, protocol-neutral. Every edge asks this
 * (SchCP availability wraps each start in a wire Slot; OSBP availability.find in an OSBP Slot),
 * so a live hold, a booking, the booking window and notice, the horizon and the walk-in reserve
 * shape what every agent is offered alike (docs/ARCHITECTURE.md, One core, every edge).
 *
 * A start is offered when the upstream reports it free (connector.slots.find) AND it is
 * still allocatable given the store's holds, bookings and busy blocks: the store's occupancy is
 * read ONCE for the whole query and each start is tested against the store's own allocation
 * rule (allocatable.ts: decideAllocation, or its answer read from precomputed units in use),
 * so openings and holds apply the same rules. The caller has checked access and party size.
 *
 * A query tests up to 3,000 starts, so what every start shares is worked out once: the plan
 * template (SlotPlanner), the hours (one HoursIndex), each resource's units in use, and the
 * zone's text for the edge (instant-format.ts). test/booking/availability holds the path as
 * it was (decideAllocation on planSlot's plan, start by start) and checks both agree.
 */
import type { Interval } from "../../holds/port.js";
import type { UpstreamSlot } from "../../connectors/port.js";
import type { Money } from "../../protocol/money/index.js";
import { err, ok, type Result } from "../../protocol/result.js";
import type { BookingDeps, BookingRefusal, HostRuntime } from "../api.js";
import { candidateResources, hoursIndexFor, upstreamRefusal } from "../holds/index.js";
import type { ServiceLookup, SlotPlan } from "../holds/index.js";
import { SlotPlanner } from "../holds/plan.js";
import { checkWhen, spanZoneView, type ZoneView } from "../rules/index.js";
import { AllocationTest } from "./allocatable.js";
import { instantFormatter } from "./instant-format.js";
import { readOccupancy, withQueryReads } from "./query-reads.js";
import { MAX_CANDIDATE_STARTS } from "./window.js";

export interface OpeningsQuery {
  /** Candidate starts lie in [start, end); already clipped to now and the horizon. */
  readonly range: Interval;
  readonly partySize: number;
  /** Only this resource for its type (a chosen or pinned resource). */
  readonly resourceId?: string;
  /** A grid a start must lie on (SchCP granularity); every upstream start when absent. */
  readonly onGrid?: (start: number) => boolean;
  /** At most this many openings (default and ceiling: MAX_CANDIDATE_STARTS). */
  readonly limit?: number;
  readonly now: number;
}

export interface Openings {
  /** Grantable starts, earliest first, each with the plan a hold would place. */
  readonly plans: readonly SlotPlan[];
  /** The host's zone over the query, for the edge's formatting. */
  readonly view: ZoneView;
  /** The upstream's stated all-in total by start (UpstreamSlot.total), when it states any. */
  readonly stated?: ReadonlyMap<number, Money>;
}

export function openings(
  deps: BookingDeps,
  runtime: HostRuntime,
  found: ServiceLookup,
  q: OpeningsQuery,
): Promise<Result<Openings, BookingRefusal>> {
  // A calendar host's connector reads the same occupancy: one store read for both.
  return withQueryReads(() => openingsOnce(deps, runtime, found, q));
}

async function openingsOnce(
  deps: BookingDeps,
  runtime: HostRuntime,
  found: ServiceLookup,
  q: OpeningsQuery,
): Promise<Result<Openings, BookingRefusal>> {
  const { config } = runtime;
  const { service, rules } = found;
  const { start: first, end: last } = q.range;
  const length = service.duration === "open" ? 0 : service.duration;
  const span = { start: first, end: last + Math.max(length, 86_400_000) };
  const view = { ...spanZoneView(config.timezone, span), format: instantFormatter(config.timezone) };
  if (first >= last) return ok({ plans: [], view });

  const upstream = await runtime.connector.slots.find({
    serviceId: service.id,
    range: { start: first, end: last },
    partySize: q.partySize,
    ...(q.resourceId !== undefined && { resourceIds: [q.resourceId] }),
  });
  if (!upstream.ok) return err(upstreamRefusal(upstream.error));

  // Once per query: the zone, the hours, what every start of the service needs (plan.ts).
  const hours = hoursIndexFor(runtime, service, first, last);
  const planner = new SlotPlanner(service, runtime, hours, q.partySize, q.resourceId);
  const free = new Uint8Array(planner.pool.length);
  // The candidates: starts a hold could be planned at (planSlot's answer is not undefined).
  const slots = startsOf(upstream.value, service.id);
  const candidates: number[] = []; // indexes into slots
  const until: number[] = [];
  let spanStart = Number.POSITIVE_INFINITY;
  let spanEnd = Number.NEGATIVE_INFINITY;
  for (let k = 0; k < slots.length; k++) {
    const start = slots[k]!.start;
    if (start < first || start >= last || (q.onGrid !== undefined && !q.onGrid(start))) continue;
    if (checkWhen(rules, config.policies, view, start, q.now) !== undefined) continue;
    const mask = planner.intervalNeedsFree ? planner.freeMask(slots[k]!.resourceIds, free) : free;
    const end = planner.occupiedUntil(start, mask);
    if (end === undefined) continue;
    candidates.push(k);
    until.push(end);
    spanStart = Math.min(spanStart, start);
    spanEnd = Math.max(spanEnd, end);
    if (candidates.length >= MAX_CANDIDATE_STARTS) break;
  }
  if (candidates.length === 0) return ok({ plans: [], view });

  // One read of the store for every candidate resource over the span of every candidate.
  const occupancy = await readOccupancy(
    deps.store,
    config.id,
    candidateResources(runtime, service, q.resourceId).map((r) => r.id),
    { start: spanStart, end: spanEnd },
    q.now,
  );
  const allocation = new AllocationTest(runtime, planner, occupancy, view);
  const limit = Math.min(q.limit ?? MAX_CANDIDATE_STARTS, MAX_CANDIDATE_STARTS);
  const plans: SlotPlan[] = [];
  let stated: Map<number, Money> | undefined;
  for (let c = 0; c < candidates.length && plans.length < limit; c++) {
    const slot = slots[candidates[c]!]!;
    const interval = { start: slot.start, end: until[c]! };
    const mask = planner.freeMask(slot.resourceIds, free);
    const plan = allocation.granted(slot.start, interval, mask, slot.resourceIds);
    if (plan === undefined) continue;
    plans.push(plan);
    if (slot.total !== undefined) (stated ??= new Map()).set(slot.start, slot.total);
  }
  return ok({ plans, view, ...(stated !== undefined && { stated }) });
}

/** Upstream starts for the service, earliest first, each start once. */
function startsOf(slots: readonly UpstreamSlot[], serviceId: string): readonly UpstreamSlot[] {
  // Usually so already (a calendar host's starts are): then they are used as they are.
  let ordered = true;
  for (let k = 0; ordered && k < slots.length; k++)
    ordered = slots[k]!.serviceId === serviceId && (k === 0 || slots[k - 1]!.start < slots[k]!.start);
  if (ordered) return slots;
  const seen = new Set<number>();
  return slots
    .filter((s) => s.serviceId === serviceId)
    .sort((a, b) => a.start - b.start)
    .filter((s) => (seen.has(s.start) ? false : (seen.add(s.start), true)));
}
