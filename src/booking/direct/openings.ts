/**
 * directOpenings: the starts another edge may offer (OSBP availability.find, Servicialo
 * check_availability): what a SchCP agent would be offered for the same service, range and
 * resource — after live holds and bookings, the booking window, notice and horizon, and the
 * walk-in reserve — because it is the same `openings` the SchCP availability runs.
 */
import { principalOf } from "../authority.js";
import type { Interval } from "../../holds/port.js";
import type { Money } from "../../protocol/money/index.js";
import { err, ok } from "../../protocol/result.js";
import type { BookingDeps, Caller, UseCase } from "../api.js";
import { openings } from "../availability/openings.js";
import { notFound } from "../bookings/refuse.js";
import { findService } from "../holds/lookup.js";
import { hostTimeRefusal } from "../hosts/refusals.js";
import { hostAccess } from "../hosts/contacts.js";
import { checkPartySize, partyCapacity, withContactRemedy } from "../rules/index.js";

export interface OpeningsRequest {
  readonly serviceId: string;
  /** Where the openings START (an OSBP merchant-local day); they may end after it. */
  readonly range: Interval;
  readonly partySize: number;
  /** Only starts this resource (an OSBP provider) can serve. */
  readonly resourceId?: string;
}

export interface Opening {
  /** Epoch ms. */
  readonly start: number;
  /** Service end (no buffer); absent for an open-ended service. */
  readonly end?: number;
  /**
   * The upstream's stated all-in total at this start (UpstreamSlot.total), when it states one:
   * an edge prices the opening with it (pricing/all-in.ts), so it shows what the business records.
   */
  readonly stated?: Money;
}

export async function directOpenings(
  deps: BookingDeps,
  hostId: string,
  caller: Caller,
  request: OpeningsRequest,
): UseCase<readonly Opening[]> {
  const host = deps.hosts.get(hostId);
  if (host === undefined) return err(notFound("host"));
  const now = deps.clock.now();
  const { policies } = host.config;
  const principal = principalOf(caller);
  // A host whose upstream needs reconnection, or has no catalog yet, offers no time (hosts/health).
  const unhealthy = hostTimeRefusal(host, now);
  if (unhealthy !== undefined) return err(withContactRemedy(unhealthy, host.config));
  const found = findService(host, request.serviceId);
  if (!found.ok) return found;
  const refusal =
    (await hostAccess(deps.contacts, host.config, principal)) ??
    checkPartySize(
      found.value.rules?.partySize,
      request.partySize,
      partyCapacity(found.value.service, host.catalog.resources),
    );
  if (refusal !== undefined) return err(withContactRemedy(refusal, host.config));
  const first = Math.max(request.range.start, now);
  const last = Math.min(request.range.end, now + policies.horizonMs);
  const open = await openings(deps, host, found.value, {
    range: { start: first, end: Math.max(first, last) },
    partySize: request.partySize,
    now,
    ...(request.resourceId !== undefined && { resourceId: request.resourceId }),
  });
  if (!open.ok) return err(withContactRemedy(open.error, host.config));
  const stated = open.value.stated;
  return ok(
    open.value.plans.map((p) => {
      const total = stated?.get(p.start);
      return {
        start: p.start,
        ...(p.end !== undefined && { end: p.end }),
        ...(total !== undefined && { stated: total }),
      };
    }),
  );
}
