/**
 * POST /availability (SchCP §5.1). The edge has verified the request's signature (and a
 * mandate when one was sent). Slots are offered only where a hold would be granted:
 *
 * - at a contacts-only host, only to a principal on its list (§7.8);
 * - inside the booking window and release schedule, and within the horizon (§5.2, §10);
 * - party_size inside the service's range (§4.1);
 * - free upstream (connector.findAvailability) AND still allocatable given the store's
 *   holds, bookings and busy blocks, outside the walk-in reserve (§7.2): the store's
 *   occupancy is read ONCE for the whole query and each start is tested with the store's own
 *   decideAllocation, so availability and holds apply the same rules.
 *
 * The work is bounded (window.ts). Availability is a snapshot; the hold is where atomicity
 * is guaranteed.
 */
import type { UpstreamSlot } from "../../connectors/port.js";
import { decideAllocation } from "../../holds/allocation.js";
import { err, ok } from "../../protocol/result.js";
import type { AvailabilityRequest, AvailabilityResponse, Slot } from "../../protocol/schcp/types.js";
import { formatInstant, instantToWallClock, wallClockToInstant } from "../../protocol/time/index.js";
import type { BookingDeps, BookingRefusal, Caller, HostRuntime, UseCase } from "../api.js";
import {
  candidateResources,
  findChosenResource,
  findService,
  hoursIndexFor,
  planSlot,
  reservesAt,
  slotAt,
  upstreamRefusal,
} from "../holds/index.js";
import type { SlotPlan } from "../holds/index.js";
import {
  checkAccess,
  checkPartySize,
  checkWhen,
  notFound,
  spanZoneView,
  withContactRemedy,
} from "../rules/index.js";
import { allocationViews, type OccupancyMap } from "./occupancy.js";
import { MAX_CANDIDATE_STARTS, parseQueryWindow, type QueryWindow } from "./window.js";

export async function availability(
  deps: BookingDeps,
  hostId: string,
  caller: Caller,
  body: AvailabilityRequest,
): UseCase<AvailabilityResponse> {
  const runtime = deps.hosts.get(hostId);
  if (runtime === undefined) return err(notFound(`host ${hostId}`));
  const answer = await query(deps, runtime, caller, body);
  return answer.ok ? answer : err(withContactRemedy(answer.error, runtime.config));
}

async function query(
  deps: BookingDeps,
  runtime: HostRuntime,
  caller: Caller,
  body: AvailabilityRequest,
): UseCase<AvailabilityResponse> {
  const now = deps.clock.now();
  const { config } = runtime;
  const refused = (r: BookingRefusal | undefined) => (r === undefined ? undefined : err(r));
  const denied = refused(checkAccess(config.policies, caller.mandate?.principal ?? null));
  if (denied !== undefined) return denied;
  const found = findService(runtime, body.service_id);
  if (!found.ok) return found;
  const chosen = findChosenResource(runtime, found.value, body.constraints?.resource);
  if (!chosen.ok) return chosen;
  const partySize = body.party_size ?? 1;
  const party = refused(checkPartySize(found.value.rules?.partySize, partySize));
  if (party !== undefined) return party;
  const window = parseQueryWindow(body);
  if (!window.ok) return window;

  const { service, rules } = found.value;
  const length = service.duration === "open" ? 0 : service.duration;
  // Starts in [first, last): not past, inside the horizon, and (fixed length) ending in the window.
  const first = Math.max(window.value.start, now);
  const last = Math.min(window.value.end - length + (length > 0 ? 1 : 0), now + config.policies.horizonMs);
  const response = (slots: Slot[]): AvailabilityResponse => ({
    service_id: service.id,
    timezone: config.timezone,
    slots,
    as_of: formatInstant(now),
  });
  if (first >= last) return ok(response([]));

  const resourceId = chosen.value?.id;
  const upstream = await runtime.connector.slots.find({
    serviceId: service.id,
    range: { start: first, end: last },
    partySize,
    ...(resourceId !== undefined && { resourceIds: [resourceId] }),
  });
  if (!upstream.ok) return err(upstreamRefusal(upstream.error));

  const onGrid = gridTest(window.value, config.timezone);
  // One reading of the zone and of the hours for every start of the query (rules/zone-view.ts).
  const view = spanZoneView(config.timezone, { start: first, end: last + Math.max(length, 86_400_000) });
  const hours = hoursIndexFor(runtime, service, first, last);
  const plans: SlotPlan[] = [];
  for (const slot of startsOf(upstream.value, service.id)) {
    if (slot.start < first || slot.start >= last || !onGrid(slot.start)) continue;
    if (checkWhen(rules, config.policies, view, slot.start, now) !== undefined) continue;
    const plan = planSlot(runtime, service, slot.start, {
      partySize,
      free: new Set(slot.resourceIds),
      hours,
      ...(resourceId !== undefined && { resourceId }),
    });
    if (plan !== undefined) plans.push(plan);
    if (plans.length >= MAX_CANDIDATE_STARTS) break;
  }
  if (plans.length === 0) return ok(response([]));

  const occupancy = await readOccupancy(
    deps,
    runtime,
    plans,
    candidateResources(runtime, service, resourceId),
    now,
  );
  const typeOf = (id: string) => runtime.catalog.resources.find((r) => r.id === id)?.type;
  const { occupancyOf, agent } = allocationViews(occupancy, typeOf);
  const limit = body.limit ?? MAX_CANDIDATE_STARTS;
  const slots: Slot[] = [];
  for (const plan of plans) {
    if (slots.length >= limit) break;
    const decision = decideAllocation(
      plan.requirements,
      plan.interval,
      occupancyOf,
      reservesAt(runtime, plan.start, view),
      agent,
    );
    if (decision.ok) slots.push(slotAt(runtime, found.value, plan.start, partySize, now, view));
  }
  return ok(response(slots));
}

/** Upstream starts for the service, earliest first, each start once. */
function startsOf(slots: readonly UpstreamSlot[], serviceId: string): UpstreamSlot[] {
  const seen = new Set<number>();
  return slots
    .filter((s) => s.serviceId === serviceId)
    .sort((a, b) => a.start - b.start)
    .filter((s) => (seen.has(s.start) ? false : (seen.add(s.start), true)));
}

/**
 * The requested granularity as a grid anchored at local midnight of the window's first day
 * in the host's zone, so PT30M means :00 and :30 on the wall clock whatever the window's own
 * start. Without a granularity every upstream start counts.
 */
function gridTest(window: QueryWindow, zone: string): (start: number) => boolean {
  const step = window.stepMs;
  if (step === undefined) return () => true;
  const day = instantToWallClock(window.start, zone);
  const midnight = wallClockToInstant(
    { ...day, hour: 0, minute: 0, second: 0, millisecond: 0 },
    zone,
    "compatible",
  );
  const anchor = midnight.ok ? midnight.value : window.start;
  return (start) => (((start - anchor) % step) + step) % step === 0;
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
