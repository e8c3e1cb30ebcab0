/**
 * createHold: the one hold engine (SchCP §5.2), for a booking hold and for a change offer's
 * hold (§5.7, §5.8). In order: the who/when/where rules (checks.ts); the price; the mandate
 * (the caller's Authority: hold, or change_offer); the reputation-scaled TTL (§7.3); the upstream's free resources at
 * the start and at nearby alternatives (one findAvailability call), with the total the
 * upstream states there, if it states one (then the price, and the mandate asked again when
 * it differs); the neutral contract, and
 * each edge's record of it (SchCP signs its offer ONCE, schcp/edge.ts); then one
 * store.placeHold that checks the caps, the walk-in reserve and the allocation atomically and
 * keeps the contract and the records with the hold. Every refusal carries the host's contact
 * remedy when it publishes one (§9.2), and a full new-guest pool the attesters it trusts
 * (§9.2 attest, §7.5).
 */
import type { HoldRecord, PlaceHoldRequest } from "../../holds/port.js";
import { err, ok } from "../../protocol/result.js";
import { noMetrics } from "../../protocol/metrics.js";
import { inSpan } from "../../protocol/tracing.js";
import type { BookingDeps, HoldPayload, HostRuntime, UseCase } from "../api.js";
import { holdAttachments } from "../bookings/edges.js";
import { edgesOf } from "../contract.js";
import type { ActionTerms } from "../authority.js";
import type { BookingContract } from "../contract.js";
import type { Money } from "../../protocol/money/index.js";
import { hostTimeRefusal } from "../hosts/refusals.js";
import { priceOffer } from "../pricing/index.js";
import { bookingRefusal, withAttestRemedy, withContactRemedy } from "../rules/index.js";
import { drawsOnPublicPool, takePublicPlace } from "../public-pool/index.js";
import { alternativeAt } from "./alternatives.js";
import { checkHold, type CheckedHold } from "./checks.js";
import { locate, type LocatedSlot } from "./locate.js";
import { holdRefusal } from "./outcome.js";
import type { CreateHoldParams } from "./params.js";
import { encodeHoldPayload } from "./payload.js";
import { reservesAt } from "./reserve.js";
import { grantTtl, type TtlGrant } from "./ttl.js";

export interface CreatedHold {
  readonly record: HoldRecord;
  readonly payload: HoldPayload;
}

export function createHold(
  deps: BookingDeps,
  runtime: HostRuntime,
  params: CreateHoldParams,
): UseCase<CreatedHold> {
  const attributes = { "booking.host_id": runtime.config.id, "booking.hold_kind": params.kind };
  return inSpan("booking.hold", { attributes }, async (span) => {
    const result = await create(deps, runtime, params);
    const metrics = deps.metrics ?? noMetrics;
    if (result.ok) {
      metrics.holdGranted();
      span.setAttribute("booking.hold_id", result.value.record.holdId);
      return result;
    }
    metrics.holdRefused(result.error.code, result.error.reason);
    span.setAttributes({
      "booking.refusal.code": result.error.code,
      "booking.refusal.reason": result.error.reason,
    });
    return err(withContactRemedy(withAttestRemedy(result.error, runtime.config), runtime.config));
  });
}

/** A hold priced, checked and signed, not yet placed: one store.placeHold away. */
export interface PreparedHold {
  readonly checked: CheckedHold;
  readonly request: PlaceHoldRequest;
  readonly payload: HoldPayload;
  readonly located: LocatedSlot;
  /** The attester the TTL grant kept (§7.5): a suspended one vouches for no one (ttl.ts). */
  readonly keptAttester?: string;
}

async function create(
  deps: BookingDeps,
  runtime: HostRuntime,
  params: CreateHoldParams,
): UseCase<CreatedHold> {
  const now = deps.clock.now();
  const prepared = await prepareHold(deps, runtime, params, now);
  if (!prepared.ok) return prepared;
  const { checked: c, request, payload, located } = prepared.value;
  const hostId = runtime.config.id;
  const holdId = request.holdId;
  const placed = await placeWithAlternatives(deps, runtime, c, params, request, payload, located, now);
  if (!placed.ok || params.kind !== "booking" || c.hostInitiated || deps.publicPool === undefined)
    return placed;
  // The attester the grant kept: one whose own reputation suspended it vouches for no one, so
  // its vouchee is an ordinary newcomer here too (§7.5, ttl.ts).
  const { attester: _asked, ...unvouched } = params.caller;
  const drawing = prepared.value.keptAttester === undefined ? unvouched : params.caller;
  if (!drawsOnPublicPool(drawing, c.proven)) return placed;
  // The public booking pool (public-pool/): a newcomer's booking that got its time takes a
  // place in one atomic count-and-add, and keeps it while its hold and then its booking hold
  // time. Taken after the allocation, so an attempt that loses the slot never uses one up
  // (it is told SLOT_UNAVAILABLE); refused, the hold gives its time straight back.
  const place = await takePublicPlace(deps.publicPool, deps.store, runtime, {
    holdId,
    caller: params.caller,
    until: placed.value.record.interval.end,
    now,
  });
  if (place.ok) return placed;
  await deps.store.releaseHold(hostId, holdId, now);
  return place;
}

/**
 * Everything of a hold before the store is asked: the rules, the price, the caller's grant,
 * the TTL, where it can go, the contract and each edge's record of it (SchCP signs its offer).
 * createHold places it; a waitlist offer (waitlist/offer.ts) places it in the step that frees
 * the time (§5.9).
 */
export async function prepareHold(
  deps: BookingDeps,
  runtime: HostRuntime,
  params: CreateHoldParams,
  now: number,
): UseCase<PreparedHold> {
  const hostId = runtime.config.id;
  const policies = runtime.config.policies;
  const unhealthy = hostTimeRefusal(runtime, now);
  if (unhealthy !== undefined) return err(unhealthy);
  if (!(params.ttlMs > 0)) {
    return err(
      bookingRefusal("invalid_request", {
        message: "ttl must be longer than zero",
        basis: { policy: "holds.max_ttl" },
      }),
    );
  }
  const checked = await checkHold(deps, runtime, params, now);
  if (!checked.ok) return checked;
  const c = checked.value;
  const { service, rules } = c.found;
  const end = service.duration === "open" ? undefined : params.start + service.duration;
  if (runtime.availabilityKnownUntil !== undefined) {
    // §10: a calendar host's time past what its calendar was read up to is unknown, not free.
    const known = await runtime.availabilityKnownUntil();
    if (known === undefined || (end ?? params.start) > known) {
      return err(
        bookingRefusal("slot_unavailable", {
          reason: "availability_unknown",
          message:
            known === undefined
              ? "the host's calendar has not been read yet"
              : "the host's calendar was read only up to an earlier time",
          basis: { policy: "horizon" },
        }),
      );
    }
  }
  const pricing = { timezone: runtime.config.timezone, taxes: runtime.catalog.taxes };
  const query = { start: params.start, partySize: params.partySize, now };
  let priced = priceOffer(service, rules, pricing, query);

  // The caller's grant, whichever edge it came through (authority.ts); a host's own proposal
  // is the host's decision and carries none.
  const authority = c.hostInitiated ? undefined : params.caller.authority;
  const termsAt = (total: Money | null): ActionTerms => ({
    action: params.kind === "change" ? "change_offer" : "hold",
    serviceId: service.id,
    start: params.start,
    ...(end !== undefined && { end }),
    total,
    ...(c.resource !== undefined && { resourceId: c.resource.id }),
    ...(params.bookingId !== undefined && { bookingId: params.bookingId }),
  });
  if (authority !== undefined) {
    const allowed = await authority.permits(termsAt(priced.total));
    if (!allowed.ok) return allowed;
  }

  let grant: TtlGrant = { ttlMs: params.ttlMs };
  if (!c.hostInitiated) {
    const subjects = {
      agentKey: params.caller.agentKey,
      principal: c.principal,
      ...(params.caller.attester !== undefined && { attester: params.caller.attester }),
    };
    // §5.9: a waitlist offer lasts offer_ttl scaled down by reputation, whatever holds.max_ttl.
    const maxMs = params.waitlist !== undefined ? params.ttlMs : policies.holds.maxTtlMs;
    const granted = await grantTtl(deps.store, subjects, params.ttlMs, maxMs, now);
    if (!granted.ok) return granted;
    grant = granted.value;
  }

  // The start alone first: a hold that is granted needs no alternatives, and working them out
  // (a wider upstream query, a plan per nearby start) is most of a hold's cost.
  const located = await locate(runtime, c, params, now, false);
  if (!located.ok) return located;
  const { plan, alternatives } = located.value;
  // The upstream states its own total at this start (a Servicialo upstream's slot price): the
  // offer is that total (pricing/price-offer.ts), and the grant is asked again when it differs
  // from the one it allowed above.
  const stated = located.value.stated.get(params.start);
  if (stated !== undefined) {
    const before = priced.total;
    priced = priceOffer(service, rules, pricing, { ...query, stated });
    const changed = before?.minor !== priced.total?.minor || before?.currency !== priced.total?.currency;
    if (authority !== undefined && changed) {
      const allowed = await authority.permits(termsAt(priced.total));
      if (!allowed.ok) return allowed;
    }
  }

  const holdId = params.holdId ?? deps.ids.next("h_");
  const expiresAt = now + grant.ttlMs;
  const approvalBy =
    policies.confirmation === "host_approval" && !c.hostInitiated
      ? Math.min(expiresAt + policies.approvalTimeoutMs, params.start)
      : undefined;
  const contract: { -readonly [K in keyof BookingContract]: BookingContract[K] } = {
    kind: params.kind,
    service: { id: service.id, name: service.name },
    start: params.start,
    ...(end !== undefined && { end }),
    ...(c.resource !== undefined && { resource: { id: c.resource.id, name: c.resource.name } }),
    partySize: params.partySize,
    ...(c.place !== undefined && { place: c.place }),
    price: priced.price,
    total: priced.total,
    lines: priced.lines,
    retention: params.retentionOverride ?? policies.retention,
    ...(approvalBy !== undefined && { approvalBy }),
  };
  const edges = params.booking !== undefined ? edgesOf(params.booking.attachments) : (params.edges ?? []);
  // §5.10: the reconfirmation policy as it stands now binds this offer, and only later ones. It
  // is a term only where an edge states the terms to the person (SchCP's signed offer); a
  // booking made through an edge without one (OSBP, A2A) has no reconfirmation to miss.
  if (policies.reconfirm !== undefined && edges.length > 0) contract.reconfirm = { ...policies.reconfirm };
  const attachments = await holdAttachments(deps, runtime, edges, {
    holdId,
    now,
    expiresAt,
    contract,
    ...(params.booking !== undefined && { booking: params.booking }),
  });
  const payload: HoldPayload = {
    v: 2,
    contract,
    ...(params.bookingId !== undefined && { bookingId: params.bookingId }),
    ...(params.proposalId !== undefined && { proposalId: params.proposalId }),
    ...(params.by !== undefined && { by: params.by }),
    agentKey: params.caller.agentKey,
    principal: c.principal,
    ...(params.callbackUrl !== undefined && { callbackUrl: params.callbackUrl }),
    ...(attachments !== undefined && { attachments }),
    ...(params.waitlist !== undefined && { waitlist: params.waitlist }),
  };

  const request: PlaceHoldRequest = {
    hostId,
    holdId,
    serviceId: service.id,
    interval: plan.interval,
    requirements: plan.requirements,
    ttlMs: grant.ttlMs,
    now,
    owner: {
      agentKey: params.caller.agentKey,
      principal: c.principal,
      ...(grant.attester !== undefined && { attester: grant.attester }),
      // A change offer counts against the agent's cap, not max_bookings (§5.7, §7.1).
      mandates: params.kind === "booking" ? (authority?.holdLimits ?? []) : [],
      ...(c.hostInitiated && { offeredByHost: true as const }),
    },
    // §5.10 Locks: the store counts the host's tentative bookings against these caps like holds,
    // in the step that places the hold (HoldStore.placeHold).
    caps: c.hostInitiated
      ? { principalProven: true }
      : {
          maxActivePerAgent: policies.holds.maxActivePerAgent,
          maxActiveUnproven: policies.holds.maxActiveUnproven,
          maxActivePerAttester: policies.holds.maxActivePerAttester,
          principalProven: c.proven,
          walkInReserves: reservesAt(runtime, params.start),
        },
    ...(params.overlapBookingId !== undefined && { overlapBookingId: params.overlapBookingId }),
    alternatives,
    payload: encodeHoldPayload(payload),
  };
  return ok({
    checked: c,
    request,
    payload,
    located: located.value,
    ...(grant.attester !== undefined && { keptAttester: grant.attester }),
  });
}

async function placeWithAlternatives(
  deps: BookingDeps,
  runtime: HostRuntime,
  c: CheckedHold,
  params: CreateHoldParams,
  request: PlaceHoldRequest,
  payload: HoldPayload,
  located: LocatedSlot,
  now: number,
): UseCase<CreatedHold> {
  let { view, stated } = located;
  let outcome = await deps.store.placeHold(request);
  if (!outcome.ok && (outcome.error.reason === "slot_taken" || outcome.error.reason === "walk_in_reserve")) {
    // §5.2: a refusal offers up to five alternatives. Work them out now and decide again, start
    // and alternatives in one atomic placeHold, so each alternative offered was free at that
    // moment (and the start itself is granted if it came free in between).
    const wider = await locate(runtime, c, params, now, true);
    if (!wider.ok) return wider;
    view = wider.value.view;
    stated = wider.value.stated;
    outcome = await deps.store.placeHold({
      ...request,
      interval: wider.value.plan.interval,
      requirements: wider.value.plan.requirements,
      alternatives: wider.value.alternatives,
    });
  }
  if (!outcome.ok) {
    return err(
      holdRefusal(outcome.error, (s) =>
        alternativeAt(runtime, c.found, s, params.partySize, now, view, stated.get(s)),
      ),
    );
  }
  return ok({ record: outcome.value, payload });
}
