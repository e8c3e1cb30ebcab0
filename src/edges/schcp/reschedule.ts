/**
 * POST /bookings/{booking_id}/reschedule (SchCP §5.7 steps 2 and 3): accept the open change
 * offer. sequence must be current (409 STALE_SEQUENCE), the hash must name the open change
 * offer (409 CONTRACT_MISMATCH), the mandate must cover the new terms, and a closed_mandate
 * "always" host needs the principal's own approval of it (§5.3). Then the atomic swap; or, at
 * a host_approval host, the move waits for the host with the booking unchanged.
 */
import { meetingInvalid } from "../../booking/meetings/answer.js";
import type { SchcpCaller } from "./caller.js";
import type { BookingDeps, BookingRefusal, HostRuntime, UseCase } from "../../booking/api.js";
import { err, ok } from "../../protocol/result.js";
import type { Result } from "../../protocol/result.js";
import { checkClosedMandatePolicy, receiptConsent } from "../../protocol/schcp/mandate/index.js";
import type { MandateAction, MandateActionKind, MandateChain } from "../../protocol/schcp/mandate/index.js";
import type { BookingResponse, RescheduleRequest } from "../../protocol/schcp/types.js";
import { authorizeOnBooking, bookingAction } from "./access.js";
import { schcpOffer } from "./attachment.js";
import { schcpHostBooking } from "./booking.js";
import { bookingResponse } from "./receipt.js";
import { contractMismatch, staleSequence } from "../../booking/bookings/refuse.js";
import { fromMandateRefusal } from "./mandate-refusal.js";
import type { BookingState, StoredProposal } from "../../booking/bookings/state.js";
import { saveBooking } from "../../booking/bookings/store.js";
import { applyMove } from "../../booking/changes/apply-move.js";
import { answerAtOnce } from "../../booking/answers/index.js";

/** The action of accepting `proposal` as §3.3 checks it: the new time, total and offer. */
export function acceptAction(
  kind: MandateActionKind,
  state: BookingState,
  p: StoredProposal,
  hash: string,
): MandateAction {
  return {
    ...bookingAction(kind, state),
    start: p.start,
    ...(p.end !== undefined && { end: p.end }),
    total: p.contract.total,
    offerSha256: hash,
  };
}

/** Mandate, then the closed-mandate policy on the change offer (§5.3 "applies to change offers too"). */
export async function authorizeAcceptance(
  deps: BookingDeps,
  host: HostRuntime,
  caller: SchcpCaller,
  state: BookingState,
  action: MandateAction,
): Promise<Result<MandateChain, BookingRefusal>> {
  const chain = await authorizeOnBooking(deps.store, caller, state, action);
  if (!chain.ok) return chain;
  const closed = checkClosedMandatePolicy(
    chain.value,
    action.offerSha256 ?? "",
    host.config.policies.closedMandate,
  );
  return closed.ok ? chain : err(fromMandateRefusal(closed.error));
}

export async function reschedule(
  deps: BookingDeps,
  hostId: string,
  caller: SchcpCaller,
  bookingId: string,
  body: RescheduleRequest,
): UseCase<BookingResponse> {
  const found = await schcpHostBooking(deps, hostId, bookingId);
  if (!found.ok) return found;
  const { host, loaded } = found.value;
  const state = loaded.state;
  const open = state.proposal?.by === "guest" ? state.proposal : undefined;

  const action =
    open === undefined
      ? { ...bookingAction("reschedule", state), offerSha256: body.offer_sha256 }
      : acceptAction("reschedule", state, open, body.offer_sha256);
  const allowed = await authorizeAcceptance(deps, host, caller, state, action);
  if (!allowed.ok) return allowed;

  if (body.sequence !== state.sequence) return err(staleSequence(state.sequence));
  // §5.12: a meeting booking moves only by a revision every member answers.
  if (state.meeting !== undefined)
    return err(meetingInvalid("a meeting booking's change offer is taken into a revised contract"));
  const signed = schcpOffer(open?.attachments);
  if (open === undefined || signed?.offerSha256 !== body.offer_sha256) {
    return err(contractMismatch(signed?.offerSha256, "offer_sha256 does not name the open change offer"));
  }
  // §5.7 step 3: "Accepting again returns the same."
  if (open.awaitingHost === true) return ok(bookingResponse(state, host));

  const consent = receiptConsent(allowed.value, body.offer_sha256);
  const now = deps.clock.now();
  // §5.7 step 3, §7.9: a host_approval host approves a guest's move as it approves a new booking,
  // "unless the booker is its owner or a rule its person signed covers the new time".
  const atOnce = await answerAtOnce(
    host,
    { store: deps.rules, check: deps.ruleCheck },
    {
      principal: allowed.value.principal,
      serviceId: open.contract.service.id,
      start: open.start,
      personRequired: state.personRequired === true,
      now,
    },
  );
  if (atOnce !== undefined) {
    const moved = await applyMove(deps, host, state, open, consent, () => ({ answer: atOnce }));
    return moved.ok ? ok(bookingResponse(moved.value, host)) : moved;
  }
  if (host.config.policies.confirmation === "host_approval") {
    // The new time stays held until the hold's expiry, never past the booking's own start.
    const waiting: StoredProposal = {
      ...open,
      awaitingHost: true,
      consent,
      expiresAt: Math.min(open.expiresAt, state.start),
    };
    const saved = await saveBooking(
      deps,
      host,
      bookingId,
      (s) =>
        s.proposal?.proposalId === open.proposalId
          ? ok({ ...s, proposal: waiting })
          : err(staleSequence(s.sequence)),
      deps.clock.now(),
    );
    return saved.ok ? ok(bookingResponse(saved.value, host)) : saved;
  }

  // §7.9: instant confirmation is the host's standing yes, to the move too.
  const moved = await applyMove(deps, host, state, open, consent, () => ({
    answer: { by: "host" as const, at: now },
  }));
  return moved.ok ? ok(bookingResponse(moved.value, host)) : moved;
}
