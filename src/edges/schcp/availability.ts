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
import type { SchcpCaller } from "./caller.js";
import { err, ok } from "../../protocol/result.js";
import type { AvailabilityRequest, AvailabilityResponse, Slot } from "../../protocol/schcp/types.js";
import { formatInstant, instantToWallClock, wallClockToInstant } from "../../protocol/time/index.js";
import type { BookingDeps, BookingRefusal, HostRuntime, UseCase } from "../../booking/api.js";
import { findChosenResource, findService } from "../../booking/holds/index.js";
import { slotAt } from "./slot.js";
import { checkPartySize, notFound, partyCapacity, withContactRemedy } from "../../booking/rules/index.js";
import { openings } from "../../booking/availability/openings.js";
import { hostTimeRefusal } from "../../booking/hosts/refusals.js";
import { hostAccess } from "../../booking/hosts/contacts.js";
import {
  MAX_CANDIDATE_STARTS,
  parseQueryWindow,
  type QueryWindow,
} from "../../booking/availability/window.js";

export async function availability(
  deps: BookingDeps,
  hostId: string,
  caller: SchcpCaller,
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
  caller: SchcpCaller,
  body: AvailabilityRequest,
): UseCase<AvailabilityResponse> {
  const now = deps.clock.now();
  const { config } = runtime;
  const refused = (r: BookingRefusal | undefined) => (r === undefined ? undefined : err(r));
  const denied = refused(await hostAccess(deps.contacts, config, caller.mandate?.principal ?? null));
  if (denied !== undefined) return denied;
  const unhealthy = refused(hostTimeRefusal(runtime, now));
  if (unhealthy !== undefined) return unhealthy;
  const found = findService(runtime, body.service_id);
  if (!found.ok) return found;
  const chosen = findChosenResource(runtime, found.value, body.constraints?.resource);
  if (!chosen.ok) return chosen;
  const partySize = body.party_size ?? 1;
  const capacity = partyCapacity(found.value.service, runtime.catalog.resources);
  const party = refused(checkPartySize(found.value.rules?.partySize, partySize, capacity));
  if (party !== undefined) return party;
  const window = parseQueryWindow(body);
  if (!window.ok) return window;

  const { service } = found.value;
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

  const open = await openings(deps, runtime, found.value, {
    range: { start: first, end: last },
    partySize,
    onGrid: gridTest(window.value, config.timezone),
    limit: body.limit ?? MAX_CANDIDATE_STARTS,
    now,
    ...(chosen.value !== undefined && { resourceId: chosen.value.id }),
  });
  if (!open.ok) return open;
  const { view, stated } = open.value;
  return ok(
    response(
      open.value.plans.map((p) =>
        slotAt(runtime, found.value, p.start, partySize, now, view, stated?.get(p.start)),
      ),
    ),
  );
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
