/**
 * POST /bookings/{booking_id}/proposal-response (SchCP §5.8, §5.11): the guest's answer to a
 * host proposal (iTIP COUNTER/REPLY). Accepting names the proposal's hash like any acceptance
 * and makes the move atomically; a counter to a pending_host booking was the host's yes, so
 * the booking becomes confirmed with the host's own answer (booking/operator/counter.ts).
 * Declining clears the proposal and releases its held time, changing nothing the guest agreed
 * to (no sequence bump); a declined counter leaves the booking waiting for the host's answer to
 * the original terms.
 */
import { meetingInvalid } from "../../booking/meetings/answer.js";
import type { SchcpCaller } from "./caller.js";
import type { BookingDeps, UseCase } from "../../booking/api.js";
import { err, ok } from "../../protocol/result.js";
import { receiptConsent } from "../../protocol/schcp/mandate/index.js";
import type { BookingResponse, ProposalResponseRequest } from "../../protocol/schcp/types.js";
import { authorizeOnBooking, bookingAction } from "./access.js";
import { schcpOffer } from "./attachment.js";
import { schcpHostBooking } from "./booking.js";
import { bookingResponse } from "./receipt.js";
import { contractMismatch, invalidState, staleSequence } from "../../booking/bookings/refuse.js";
import { acceptCounter } from "../../booking/operator/counter.js";
import { saveBooking } from "../../booking/bookings/store.js";
import { applyMove, withoutProposal } from "../../booking/changes/apply-move.js";
import { acceptAction, authorizeAcceptance } from "./reschedule.js";

export async function proposalResponse(
  deps: BookingDeps,
  hostId: string,
  caller: SchcpCaller,
  bookingId: string,
  body: ProposalResponseRequest,
): UseCase<BookingResponse> {
  const found = await schcpHostBooking(deps, hostId, bookingId);
  if (!found.ok) return found;
  const { host, loaded } = found.value;
  const state = loaded.state;
  const p =
    state.proposal?.by === "host" && state.proposal.proposalId === body.proposal_id
      ? state.proposal
      : undefined;

  const proposed = schcpOffer(p?.attachments)?.offerSha256;
  const hash = body.offer_sha256 ?? proposed ?? "";
  const action =
    p === undefined
      ? bookingAction("proposal_response", state)
      : acceptAction("proposal_response", state, p, hash);
  // Declining accepts nothing, so only the principal and scope are checked for it.
  const allowed = body.accept
    ? await authorizeAcceptance(deps, host, caller, state, action)
    : await authorizeOnBooking(deps.store, caller, state, action);
  if (!allowed.ok) return allowed;
  if (body.sequence !== state.sequence) return err(staleSequence(state.sequence));
  if (p === undefined) return err(invalidState("no open host proposal with that proposal_id"));

  // §5.11, §5.12: a counter (or host proposal) on a meeting booking is taken into a revised
  // contract that every member answers; accepting it alone is refused.
  if (body.accept && state.meeting !== undefined)
    return err(meetingInvalid("a meeting booking's change offer is taken into a revised contract"));
  const now = deps.clock.now();
  if (!body.accept) {
    await deps.store.releaseHold(hostId, p.holdId, now);
    const saved = await saveBooking(deps, host, bookingId, (s) => ok(withoutProposal(s, p.proposalId)), now);
    return saved.ok ? ok(bookingResponse(saved.value, host)) : saved;
  }
  if (proposed === undefined || body.offer_sha256 !== proposed) {
    return err(contractMismatch(proposed, "offer_sha256 does not name the host's proposal"));
  }

  const consent = receiptConsent(allowed.value, proposed);
  // §5.11: a counter to a pending_host booking was the host's yes; the core confirms and moves it.
  const moved =
    state.status === "pending_host"
      ? await acceptCounter(deps, host, state, p, consent)
      : await applyMove(deps, host, state, p, consent);
  return moved.ok ? ok(bookingResponse(moved.value, host)) : moved;
}
