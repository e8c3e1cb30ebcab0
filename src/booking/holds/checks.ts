/**
 * The who, when and where of a hold (SchCP §5.2), before any resource is looked at, in the
 * spec's order: access (§7.8), a mandate where one is required (§7.1), eligibility (§7.2),
 * release schedule, min notice, max advance, the horizon (§10), place and service area,
 * party size (§4.1), then the chosen resource of a selectable service. A host's own proposal
 * (a change offer by "host", §5.8) is the host's decision: only the start must not have
 * passed.
 */
import { principalOf } from "../authority.js";
import type { CatalogResource } from "../../connectors/port.js";
import { err, ok, type Result } from "../../protocol/result.js";
import type { Place } from "../contract.js";
import type { BookingDeps, BookingRefusal, HostRuntime } from "../api.js";
import { hostAccess } from "../hosts/contacts.js";
import {
  bookingRefusal,
  checkEligibility,
  checkMinNotice,
  checkPartySize,
  checkPlace,
  checkWhen,
  partyCapacity,
} from "../rules/index.js";
import { findChosenResource, findService, type ServiceLookup } from "./lookup.js";
import type { CreateHoldParams } from "./params.js";

export interface CheckedHold {
  readonly found: ServiceLookup;
  readonly principal: string | null;
  /** Kept an appointment here (§7.2), or owns this calendar (§7.7): draws on no newcomer pool. */
  readonly proven: boolean;
  readonly place?: Place;
  readonly resource?: CatalogResource;
  readonly hostInitiated: boolean;
}

const isHostInitiated = (p: CreateHoldParams): boolean => p.kind === "change" && p.by === "host";

export async function checkHold(
  deps: BookingDeps,
  runtime: HostRuntime,
  params: CreateHoldParams,
  now: number,
): Promise<Result<CheckedHold, BookingRefusal>> {
  const { config } = runtime;
  const policies = config.policies;
  const found = findService(runtime, params.serviceId);
  if (!found.ok) return found;
  const hostInitiated = isHostInitiated(params);
  const principal = hostInitiated
    ? await proposalPrincipal(deps, config.id, params)
    : principalOf(params.caller);
  const returning = principal !== null && (await deps.store.isPrincipalProven(config.id, principal, now));
  // §7.7: a person's calendar's owner "may always book their own time": no newcomer there.
  const proven = returning || (principal !== null && principal === config.owner);

  let place: Place | undefined = params.place;
  if (hostInitiated) {
    const past = checkMinNotice(0, params.start, now);
    if (past !== undefined) return err(past);
    if ((found.value.rules?.location ?? "host") === "host") place = undefined;
  } else {
    const refusal =
      (await hostAccess(deps.contacts, config, principal)) ??
      mandateNeeded(runtime, params) ??
      checkEligibility(found.value.rules?.eligibility, returning) ??
      checkWhen(found.value.rules, policies, config.timezone, params.start, now);
    if (refusal !== undefined) return err(refusal);
    const where = checkPlace(found.value.rules?.location, params.place, policies.serviceArea);
    if (!where.ok) return where;
    place = where.value;
    const capacity = partyCapacity(found.value.service, runtime.catalog.resources);
    const party = checkPartySize(found.value.rules?.partySize, params.partySize, capacity);
    if (party !== undefined) return err(party);
  }
  const resource =
    params.pinnedResourceId !== undefined
      ? pinnedResource(runtime, found.value, params.pinnedResourceId)
      : findChosenResource(runtime, found.value, params.resourceId);
  if (!resource.ok) return resource;
  return ok({
    found: found.value,
    principal,
    proven,
    hostInitiated,
    ...(place !== undefined && { place }),
    ...(resource.value !== undefined && { resource: resource.value }),
  });
}

/**
 * §7.1 requires_mandate (default true): no anonymous holds. A change offer always needs one
 * (scope reschedule, §5.7). The edge has verified any mandate sent; this is its absence.
 */
function mandateNeeded(runtime: HostRuntime, params: CreateHoldParams): BookingRefusal | undefined {
  // Any edge's grant answers for the principal; whether it allows a change offer is its own
  // answer (Authority.permits: a SchCP mandate needs reschedule in scope, OSBP never does).
  if (params.caller.authority !== undefined) return undefined;
  if (params.kind === "booking" && !runtime.config.policies.holds.requiresMandate) return undefined;
  return bookingRefusal("authority_invalid", {
    message:
      params.kind === "change"
        ? "a change offer needs a mandate with reschedule in its scope"
        : "this host places holds only under a mandate",
    basis: { policy: "holds.requires_mandate" },
  });
}

/** A resource the edge pinned (an OSBP provider): it must be one of a type the service requires. */
function pinnedResource(
  runtime: HostRuntime,
  found: ServiceLookup,
  resourceId: string,
): Result<CatalogResource | undefined, BookingRefusal> {
  const types = new Set(found.service.requires.map((r) => r.resourceType));
  const resource = runtime.catalog.resources.find((r) => r.id === resourceId && types.has(r.type));
  if (resource !== undefined) return ok(resource);
  return err(
    bookingRefusal("invalid_request", {
      message: `service ${found.service.id} has no resource ${resourceId}`,
      details: { field: "resource" },
    }),
  );
}

/**
 * A host's proposal is held for the booking's guest, who may accept it (§5.8): its principal
 * is the one given, or the booking's own. (Left null, the hold would count in the new-guest
 * pool of §7.2 against other guests.)
 */
async function proposalPrincipal(deps: BookingDeps, hostId: string, params: CreateHoldParams) {
  if (params.principal !== undefined) return params.principal;
  if (params.bookingId === undefined) return null;
  return (await deps.store.getBooking(hostId, params.bookingId))?.owner.principal ?? null;
}
