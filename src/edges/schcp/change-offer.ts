/**
 * POST /bookings/{booking_id}/change-offer (SchCP §5.7 step 1): the host holds the new time
 * (the change hold may overlap this booking and nothing else) and answers with a proposal
 * whose offer is kind "change", names the booking and, as prev, the current contract's hash.
 * The booking keeps its time until the offer is accepted. At most one open change offer: asking
 * again releases the previous one; asking clears a recorded declined_change.
 */
import { coreCaller, type SchcpCaller } from "./caller.js";
import type { BookingDeps, UseCase } from "../../booking/api.js";
import { err, ok } from "../../protocol/result.js";
import type { ChangeOfferRequest, ChangeOfferResponse } from "../../protocol/schcp/types.js";
import { parseInstant } from "../../protocol/time/index.js";
import { authorizeOnBooking, bookingAction } from "./access.js";
import { invalidState, refuse, staleSequence } from "../../booking/bookings/refuse.js";
import { saveBooking } from "../../booking/bookings/store.js";
import { placeChangeHold } from "../../booking/changes/change-hold.js";
import type { CreateHold } from "../../booking/changes/hold-engine.js";
import { schcpHostBooking } from "./booking.js";
import { buildProposal } from "./wire.js";

export async function changeOffer(
  deps: BookingDeps,
  createHold: CreateHold,
  hostId: string,
  caller: SchcpCaller,
  bookingId: string,
  body: ChangeOfferRequest,
): UseCase<ChangeOfferResponse> {
  const found = await schcpHostBooking(deps, hostId, bookingId);
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
  // §5.12 Revisions: a meeting booking still pending_host or tentative may be given a change
  // offer too, for the organizer to take into a revised contract.
  const changeable =
    state.status === "confirmed" ||
    (state.meeting !== undefined && (state.status === "pending_host" || state.status === "tentative"));
  if (!changeable) return err(invalidState(`a ${state.status} booking cannot be changed`));
  if (body.sequence !== state.sequence) return err(staleSequence(state.sequence));
  if (now >= state.start) return err(refuse("invalid_state", "already_started", "the booking has started"));

  const proposalId = deps.ids.next("p_");
  const created = await placeChangeHold(deps, createHold, host, state, {
    caller: coreCaller(deps.store, hostId, caller),
    start: start.value,
    proposalId,
    by: "guest",
    ...(body.place !== undefined && { place: body.place }),
  });
  if (!created.ok) return created;
  const proposal = created.value;

  const saved = await saveBooking(
    deps,
    host,
    bookingId,
    (s) => {
      if (s.sequence !== state.sequence || s.status !== state.status) return err(staleSequence(s.sequence));
      const { declinedChange: _cleared, ...rest } = s;
      return ok({ ...rest, proposal });
    },
    deps.clock.now(),
  );
  if (!saved.ok) {
    await deps.store.releaseHold(hostId, proposal.holdId, deps.clock.now());
    return saved;
  }
  const shown = buildProposal(proposal, host);
  // The booking stands on a SchCP offer, so the SchCP edge signed the change offer (edge.ts).
  if (shown === undefined) throw new Error(`change offer ${proposalId} carries no SchCP offer`);
  return ok({ proposal: shown });
}

const parseStart = (text: string) => {
  const parsed = parseInstant(text, "/start");
  return parsed.ok
    ? ok(parsed.value.epochMs)
    : err(
        refuse("invalid_request", "invalid_request", parsed.error.message, { details: { field: "/start" } }),
      );
};
