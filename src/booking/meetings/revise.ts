/**
 * POST /bookings/{id}/meeting on a meeting booking still pending_host or tentative (SchCP
 * §5.12 Revisions), once the edge has verified the revised contract against this calendar's
 * entry: the same meeting, organizer and member, a higher revision than any this calendar was
 * handed. The booking names the new hash, drops any earlier acceptance and is answered again
 * as on confirm (confirm.ts meetingStart), sequence + 1 (§6).
 *
 * Where the member's entry names the booking's open change offer (its own POST
 * /bookings/{id}/change-offer, or the host's counter, §5.11) rather than its current offer, the
 * booking adopts that offer in the same step: its time moves where the change offer held it
 * (changes/apply-move.ts), and it takes the offer's contract.
 */
import type { BookingDeps, BookingRefusal, UseCase } from "../api.js";
import { err, ok } from "../../protocol/result.js";
import type { Result } from "../../protocol/result.js";
import { invalidState, staleSequence } from "../bookings/refuse.js";
import type { BookingState, StoredProposal } from "../bookings/state.js";
import type { Consent } from "../contract.js";
import { applyMove } from "../changes/apply-move.js";
import { hostBooking, saveBooking } from "../bookings/store.js";
import { notifyGuest } from "../bookings/edges.js";
import { meetingInvalid, ruleYes } from "./answer.js";
import { meetingStart } from "./confirm.js";
import type { MeetingRuleYes, MeetingTerms, StoredMeeting } from "./types.js";

/** The checks a revision must pass against the booking as it stands. */
export function revisionRefusal(
  state: BookingState,
  sequence: number,
  terms: MeetingTerms,
): BookingRefusal | undefined {
  const m: StoredMeeting | undefined = state.meeting;
  if (m === undefined) return meetingInvalid("this booking is not part of a meeting");
  if (state.status !== "pending_host" && state.status !== "tentative" && state.status !== "confirmed")
    return invalidState(`a ${state.status} meeting booking is not revised`);
  if (sequence !== state.sequence) return staleSequence(state.sequence);
  if (terms.meetingId !== m.meetingId) return meetingInvalid("a revision has the same meeting_id");
  if (terms.organizer !== m.organizer) return meetingInvalid("a revision has the same organizer");
  if (terms.member !== m.member || terms.role !== m.role)
    return meetingInvalid("a revision has the same member on this calendar");
  if (terms.revision <= m.highestRevision)
    return meetingInvalid(
      `a revision is higher than ${m.highestRevision}, the highest this calendar was handed`,
    );
  return undefined;
}

export async function reviseMeeting(
  deps: BookingDeps,
  hostId: string,
  bookingId: string,
  sequence: number,
  terms: MeetingTerms,
  adopt?: { readonly proposal: StoredProposal; readonly consent: Consent },
): UseCase<BookingState> {
  const found = await hostBooking(deps, hostId, bookingId);
  if (!found.ok) return found;
  const { host } = found.value;
  const now = deps.clock.now();
  const policies = host.config.policies;
  const state = found.value.loaded.state;
  // §5.12 Revisions: "It is answered again as on confirm: tentative for the organizer's own
  // calendar or where a rule covers it": the rule is asked about the revision's own time.
  const byRule: MeetingRuleYes | undefined = await ruleYes(deps, host, terms, {
    serviceId: state.serviceId,
    start: adopt?.proposal.start ?? state.start,
    personRequired: state.personRequired === true,
    now,
  });
  /** The booking answered again under the new contract, at its (possibly moved) start. */
  const answeredAgain = (s: BookingState, bumped: boolean): BookingState => {
    const approvalBy = Math.min(now + policies.approvalTimeoutMs, s.start);
    const next = meetingStart(terms, policies.confirmation === "instant", approvalBy, now, byRule);
    const { answer: _a, approvalBy: _b, meeting: _m, declinedChange: _d, ...rest } = s;
    return {
      ...rest,
      status: next.status,
      sequence: bumped ? s.sequence : s.sequence + 1,
      ...(next.answer !== undefined && { answer: next.answer }),
      ...(next.approvalBy !== undefined && { approvalBy: next.approvalBy }),
      creditPending: true,
      meeting: next.meeting,
    };
  };
  let saved: Result<BookingState, BookingRefusal>;
  if (adopt !== undefined) {
    const refused = revisionRefusal(state, sequence, terms);
    if (refused !== undefined) return err(refused);
    if (state.status === "confirmed") return err(invalidState("the meeting became final; revise it again"));
    if (state.proposal?.proposalId !== adopt.proposal.proposalId)
      return err(invalidState("the change offer the revision names is no longer open"));
    // applyMove bumps sequence with the move; the revision is that one change (§6, seq + 1).
    saved = await applyMove(deps, host, state, adopt.proposal, adopt.consent, undefined, (moved) =>
      answeredAgain(moved, true),
    );
  } else {
    saved = await saveBooking(
      deps,
      host,
      bookingId,
      (s) => {
        const refused = revisionRefusal(s, sequence, terms);
        if (refused !== undefined) return err(refused);
        if (s.status === "confirmed") return err(invalidState("the meeting became final; revise it again"));
        return ok(answeredAgain(s, false));
      },
      now,
    );
  }
  // The rule's yes is heard as any member's acceptance is (§5.12 booking.accepted), as on confirm.
  if (saved.ok && byRule !== undefined && saved.value.meeting?.acceptance === byRule.acceptance)
    await notifyGuest(deps, host, saved.value, "accepted", now);
  return saved;
}
