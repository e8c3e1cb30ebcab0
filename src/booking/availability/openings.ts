/**
 * openings: the starts the core would grant a hold at, protocol-neutral. Every edge asks this
 * (SchCP availability wraps each start in a wire Slot; OSBP availability.find in an OSBP Slot),
 * so a live hold, a booking, the booking window and notice, the horizon and the walk-in reserve
 * shape what every agent is offered alike (DESIGN.md "One core, every edge").
 *
 * A start is offered when the upstream reports it free (connector.slots.find) AND it is
 * still allocatable given the store's holds, bookings and busy blocks: the store's occupancy is
 * read ONCE for the whole query and each start is tested with the store's own decideAllocation,
 * so openings and holds apply the same rules. The caller has checked access and party size.
 */
import type { Interval } from "../../holds/port.js";
import type { UpstreamSlot } from "../../connectors/port.js";
import { decideAllocation } from "../../holds/allocation.js";
import { err, ok, type Result } from "../../protocol/result.js";
import type { BookingDeps, BookingRefusal, HostRuntime } from "../api.js";
import { candidateResources, hoursIndexFor, planSlot, reservesAt, upstreamRefusal } from "../holds/index.js";
import type { ServiceLookup, SlotPlan } from "../holds/index.js";
import { checkWhen, spanZoneView, type ZoneView } from "../rules/index.js";
import { allocationViews, type OccupancyMap } from "./occupancy.js";
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
}

export async function openings(
  deps: BookingDeps,
  runtime: HostRuntime,
  found: ServiceLookup,
  q: OpeningsQuery,
): Promise<Result<Openings, BookingRefusal>> {
  const { config } = runtime;
  const { service, rules } = found;
  const { start: first, end: last } = q.range;
  const length = service.duration === "open" ? 0 : service.duration;
  const view = spanZoneView(config.timezone, { start: first, end: last + Math.max(length, 86_400_000) });
  if (first >= last) return ok({ plans: [], view });

  const upstream = await runtime.connector.slots.find({
    serviceId: service.id,
    range: { start: first, end: last },
    partySize: q.partySize,
    ...(q.resourceId !== undefined && { resourceIds: [q.resourceId] }),
  });
  if (!upstream.ok) return err(upstreamRefusal(upstream.error));

  // One reading of the zone and of the hours for every start of the query (rules/zone-view.ts).
  const hours = hoursIndexFor(runtime, service, first, last);
  const candidates: SlotPlan[] = [];
  for (const slot of startsOf(upstream.value, service.id)) {
    if (slot.start < first || slot.start >= last || (q.onGrid !== undefined && !q.onGrid(slot.start)))
      continue;
    if (checkWhen(rules, config.policies, view, slot.start, q.now) !== undefined) continue;
    const plan = planSlot(runtime, service, slot.start, {
      partySize: q.partySize,
      free: new Set(slot.resourceIds),
      hours,
      ...(q.resourceId !== undefined && { resourceId: q.resourceId }),
    });
    if (plan !== undefined) candidates.push(plan);
    if (candidates.length >= MAX_CANDIDATE_STARTS) break;
  }
  if (candidates.length === 0) return ok({ plans: [], view });

  const occupancy = await readOccupancy(
    deps,
    runtime,
    candidates,
    candidateResources(runtime, service, q.resourceId),
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
  return ok({ plans, view });
}

/** Upstream starts for the service, earliest first, each start once. */
function startsOf(slots: readonly UpstreamSlot[], serviceId: string): UpstreamSlot[] {
  const seen = new Set<number>();
  return slots
    .filter((s) => s.serviceId === serviceId)
    .sort((a, b) => a.start - b.start)
    .filter((s) => (seen.has(s.start) ? false : (seen.add(s.start), true)));
}

/** One read of the store for every candidate resource over the span of every plan. */
function readOccupancy(
  deps: BookingDeps,
  runtime: HostRuntime,
  plans: readonly SlotPlan[],
  resources: ReadonlyArray<{ readonly id: string }>,
  now: number,
): Promise<OccupancyMap> {
  const start = Math.min(...plans.map((p) => p.interval.start));
  const end = Math.max(...plans.map((p) => p.interval.end));
  return deps.store.listOccupancy(
    runtime.config.id,
    resources.map((r) => r.id),
    { start, end },
    now,
  );
}
