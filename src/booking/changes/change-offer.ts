/**
 * POST /bookings/{booking_id}/change-offer (SchCP §5.7 step 1): the host holds the new time
 * (the change hold may overlap this booking and nothing else) and answers with a proposal
 * whose offer is kind "change", names the booking and, as prev, the current contract's hash.
 * The booking keeps its time until the offer is accepted. At most one open change offer: asking
 * again releases the previous one; asking clears a recorded declined_change.
 */
import type { BookingDeps, Caller, HostRuntime, UseCase } from "../api.js";
import { err, ok } from "../../protocol/result.js";
import type { ChangeOfferRequest, ChangeOfferResponse } from "../../protocol/schcp/types.js";
import { parseInstant } from "../../protocol/time/index.js";
import { authorizeOnBooking, bookingAction } from "../bookings/access.js";
import { invalidState, refuse, staleSequence } from "../bookings/refuse.js";
import type { BookingState, StoredProposal } from "../bookings/state.js";
import { hostBooking, saveBooking } from "../bookings/store.js";
import { buildProposal } from "../bookings/wire.js";
import { withoutProposal } from "./apply-move.js";
import type { ChangeHoldParams, CreateHold } from "./hold-engine.js";

export async function changeOffer(
  deps: BookingDeps,
  createHold: CreateHold,
  hostId: string,
  caller: Caller,
  bookingId: string,
  body: ChangeOfferRequest,
): UseCase<ChangeOfferResponse> {
  const found = await hostBooking(deps, hostId, bookingId);
  if (!found.ok) return found;
  const { host, loaded } = found.value;
  const state = loaded.state;

  const start = body.start === undefined ? ok(state.start) : parseStart(body.start);
  if (!start.ok) return start;
  const length = state.end === undefined ? undefined : state.end - state.start;
  const action = {
    ...bookingAction("change_offer", state),
    start: start.value,
    ...(length !== undefined && { end: start.value + length }),
  };
  const allowed = await authorizeOnBooking(deps.store, caller, state, action);
  if (!allowed.ok) return allowed;

  const now = deps.clock.now();
  if (state.status !== "confirmed") return err(invalidState(`a ${state.status} booking cannot be changed`));
  if (body.sequence !== state.sequence) return err(staleSequence(state.sequence));
  if (now >= state.start) return err(refuse("INVALID_STATE", "already_started", "the booking has started"));

  const proposalId = deps.ids.next("p_");
  const created = await placeChangeHold(deps, createHold, host, state, {
    caller,
    start: start.value,
    proposalId,
    by: "guest",
    ...(body.place !== undefined && { place: body.place }),
  });
  if (!created.ok) return created;
  const proposal = created.value;

  const saved = await saveBooking(
    deps.store,
    host,
    bookingId,
    (s) => {
      if (s.sequence !== state.sequence || s.status !== "confirmed") return err(staleSequence(s.sequence));
      const { declinedChange: _cleared, ...rest } = s;
      return ok({ ...rest, proposal });
    },
    deps.clock.now(),
  );
  if (!saved.ok) {
    await deps.store.releaseHold(hostId, proposal.holdId, deps.clock.now());
    return saved;
  }
  return ok({ proposal: buildProposal(proposal, host) });
}

const parseStart = (text: string) => {
  const parsed = parseInstant(text, "/start");
  return parsed.ok
    ? ok(parsed.value.epochMs)
    : err(
        refuse("INVALID_REQUEST", "invalid_request", parsed.error.message, { details: { field: "/start" } }),
      );
};

/**
 * Releases the open proposal (at most one, §5.7), then holds the new time with the hold
 * engine as a change offer. Shared by a guest's change offer and a host proposal (§5.8).
 */
export async function placeChangeHold(
  deps: BookingDeps,
  createHold: CreateHold,
  host: HostRuntime,
  state: BookingState,
  opts: Pick<ChangeHoldParams, "caller" | "start" | "proposalId" | "by" | "place" | "principal"> & {
    readonly ttlMs?: number;
  },
) {
  const now = deps.clock.now();
  if (state.proposal !== undefined) {
    const previous = state.proposal;
    await deps.store.releaseHold(host.config.id, previous.holdId, now);
    await saveBooking(
      deps.store,
      host,
      state.bookingId,
      (s) => ok(withoutProposal(s, previous.proposalId)),
      now,
    );
  }
  const place = opts.place ?? state.place;
  const created = await createHold(deps, host, {
    caller: opts.caller,
    serviceId: state.serviceId,
    start: opts.start,
    ttlMs: opts.ttlMs ?? host.config.policies.holds.maxTtlMs,
    ...(state.callbackUrl !== undefined && { callbackUrl: state.callbackUrl }),
    partySize: state.partySize ?? 1,
    ...(place !== undefined && { place }),
    kind: "change",
    bookingId: state.bookingId,
    proposalId: opts.proposalId,
    by: opts.by,
    overlapBookingId: state.bookingId,
    prev: state.contract.offerSha256,
    retentionOverride: state.retention,
    ...(opts.principal !== undefined && { principal: opts.principal }),
  });
  if (!created.ok) return created;
  const { record, payload } = created.value;
  const proposal: StoredProposal = {
    proposalId: opts.proposalId,
    by: opts.by,
    holdId: record.holdId,
    contract: { offer: payload.offer, offerSha256: payload.offerSha256, claims: payload.claims },
    start: payload.start,
    ...(payload.end !== undefined && { end: payload.end }),
    ...(payload.place !== undefined && { place: payload.place }),
    expiresAt: record.expiresAt,
    resourceIds: record.allocations.map((a) => a.resourceId),
  };
  return ok(proposal);
}
