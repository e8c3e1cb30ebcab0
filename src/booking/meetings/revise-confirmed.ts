/**
 * Changing a confirmed meeting (SchCP §5.12): the booking stays confirmed at its time, place
 * and contract until the organizer commits a revision every member said yes to.
 *
 * - hand over (POST /bookings/{id}/meeting on a confirmed booking): refused once the meeting
 *   has started (409 INVALID_STATE already_started) or where the revision's exp is after its
 *   current start (meeting_invalid); otherwise kept as meeting.pending_revision. The organizer's
 *   own calendar, a business's and one where a rule of the member's covers it answer at once
 *   (the rule's yes heard as booking.accepted); a person answers with an acceptance of the
 *   revision's hash (acceptRevision).
 * - commit (commit.ts, with the revision's hash): every acceptance checked as for a first
 *   commit, then the calendar moves in one step: it adopts the change offer the revision names
 *   (or keeps its own terms), names the new contract, sequence + 1, booking.change_approved.
 * - drop: a member's no or their yes taken back, the organizer's withdraw (DECLINED
 *   organizer_withdrew), or the deadline (EXPIRED host_did_not_answer where the member never
 *   answered, meeting_incomplete where they had): the booking keeps its time and contract, the
 *   change offer's held time comes free, declined_change records the revision, and the
 *   organizer hears booking.change_declined.
 */
import type { BookingDeps, BookingRefusal, HostRuntime, UseCase } from "../api.js";
import { err, ok } from "../../protocol/result.js";
import type { Result } from "../../protocol/result.js";
import { notifyGuest } from "../bookings/edges.js";
import { contractMismatch, invalidState, refuse } from "../bookings/refuse.js";
import type { BookingEnding, BookingState, StoredProposal } from "../bookings/state.js";
import { hostBooking, saveBooking } from "../bookings/store.js";
import { applyMove, withoutProposal } from "../changes/apply-move.js";
import { acceptanceInvalid, answerOf, meetingInvalid, ruleYes, verifyAcceptanceOf } from "./answer.js";
import { revisionRefusal } from "./revise.js";
import type {
  MeetingAnswerer,
  MeetingRuleYes,
  MeetingTerms,
  PendingMeetingRevision,
  StoredMeeting,
} from "./types.js";

/** The checks a revision of a confirmed meeting must pass beyond revisionRefusal's. */
export function confirmedRevisionRefusal(
  state: BookingState,
  sequence: number,
  terms: MeetingTerms,
  now: number,
): BookingRefusal | undefined {
  const refused = revisionRefusal(state, sequence, terms);
  if (refused !== undefined) return refused;
  if (state.status !== "confirmed") return invalidState(`the booking is ${state.status}`);
  if (now >= state.start) return refuse("invalid_state", "already_started", "the meeting has started");
  if (terms.expiresAt > state.start)
    return meetingInvalid("a revision of a confirmed meeting is answered by its current start (exp)");
  return undefined;
}

/** POST /bookings/{id}/meeting on a confirmed meeting booking. */
export async function reviseConfirmedMeeting(
  deps: BookingDeps,
  hostId: string,
  bookingId: string,
  sequence: number,
  terms: MeetingTerms,
  proposal: StoredProposal | undefined,
): UseCase<BookingState> {
  const found = await hostBooking(deps, hostId, bookingId);
  if (!found.ok) return found;
  const { host, loaded } = found.value;
  const now = deps.clock.now();
  // "one where a rule covers it answer[s] at once": the rule is asked about the revision's own
  // time (the change offer's where it names one), as on confirm.
  const byRule: MeetingRuleYes | undefined = await ruleYes(deps, host, terms, {
    serviceId: loaded.state.serviceId,
    start: proposal?.start ?? loaded.state.start,
    personRequired: loaded.state.personRequired === true,
    now,
  });
  const saved = await saveBooking(
    deps,
    host,
    bookingId,
    (s) => {
      const refused = confirmedRevisionRefusal(s, sequence, terms, now);
      if (refused !== undefined) return err(refused);
      if (proposal !== undefined && s.proposal?.proposalId !== proposal.proposalId)
        return err(invalidState("the change offer the revision names is no longer open"));
      const m = s.meeting as StoredMeeting;
      const pendingRevision: PendingMeetingRevision = {
        terms,
        ...(proposal !== undefined && { proposalId: proposal.proposalId }),
        expiresAt: Math.min(terms.expiresAt, proposal?.expiresAt ?? terms.expiresAt),
        // The organizer's signature is their yes; a business's offer is its yes; a rule's yes
        // is the acceptance the calendar signed by it.
        answered: terms.role !== "person" || byRule !== undefined,
        ...(byRule !== undefined && { acceptance: byRule.acceptance, answer: byRule.answer }),
      };
      return ok({ ...s, meeting: { ...m, highestRevision: terms.revision, pendingRevision } });
    },
    now,
  );
  // Heard as any member's acceptance is (booking.accepted), as a rule's yes on confirm.
  if (saved.ok && byRule !== undefined) await notifyGuest(deps, host, saved.value, "accepted", now);
  return saved;
}

/** Whether the booking is a confirmed meeting booking with a revision pending (operator answers). */
export async function revisionPending(
  deps: BookingDeps,
  hostId: string,
  bookingId: string,
): Promise<boolean> {
  const found = await hostBooking(deps, hostId, bookingId);
  return found.ok && pendingOf(found.value.loaded.state).ok;
}

/** The booking as an acceptance of its pending revision is checked against. */
const underRevision = (s: BookingState, rev: PendingMeetingRevision): BookingState => ({
  ...s,
  meeting: { ...(s.meeting as StoredMeeting), ...rev.terms },
});

function pendingOf(s: BookingState): Result<PendingMeetingRevision, BookingRefusal> {
  const rev = s.status === "confirmed" ? s.meeting?.pendingRevision : undefined;
  return rev === undefined ? err(invalidState("the meeting has no revision waiting for an answer")) : ok(rev);
}

/** The member's yes to the pending revision, on their own calendar (operator meeting-accept). */
export async function acceptRevision(
  deps: BookingDeps,
  hostId: string,
  bookingId: string,
  acceptance: string,
): UseCase<BookingState> {
  const found = await hostBooking(deps, hostId, bookingId);
  if (!found.ok) return found;
  const { host, loaded } = found.value;
  const rev = pendingOf(loaded.state);
  if (!rev.ok) return rev;
  if (rev.value.terms.role !== "person")
    return err(invalidState("this calendar's member has nothing to accept: it answered at once"));
  const now = deps.clock.now();
  const verified = await verifyAcceptanceOf(
    deps,
    host,
    underRevision(loaded.state, rev.value),
    acceptance,
    now,
  );
  if (!verified.ok) return verified;
  if (verified.value.principal !== rev.value.terms.member)
    return err(acceptanceInvalid("the acceptance is not from this calendar's member"));
  const hash = rev.value.terms.contractSha256;
  const saved = await saveBooking(
    deps,
    host,
    bookingId,
    (s) => {
      const again = pendingOf(s);
      if (!again.ok) return again;
      if (again.value.terms.contractSha256 !== hash)
        return err(acceptanceInvalid("the acceptance names another revision of the contract"));
      const pendingRevision = {
        ...again.value,
        answered: true,
        acceptance,
        answer: answerOf(verified.value, now),
      };
      return ok({ ...s, meeting: { ...(s.meeting as StoredMeeting), pendingRevision } });
    },
    now,
  );
  if (!saved.ok) return saved;
  await notifyGuest(deps, host, saved.value, "accepted", now);
  return saved;
}

/** Drops the pending revision: the booking keeps its time and contract (§5.12). */
export async function dropRevision(
  deps: BookingDeps,
  host: HostRuntime,
  state: BookingState,
  refusal: BookingEnding,
  hash?: string,
): UseCase<BookingState> {
  const rev = pendingOf(state);
  if (!rev.ok) return rev;
  if (hash !== undefined && hash !== rev.value.terms.contractSha256)
    return err(
      refuse("contract_mismatch", "contract_mismatch", "contract_sha256 does not name the pending revision", {
        details: { contract_sha256: rev.value.terms.contractSha256 },
      }),
    );
  const now = deps.clock.now();
  const named = rev.value.proposalId;
  const offer = named !== undefined && state.proposal?.proposalId === named ? state.proposal : undefined;
  if (offer !== undefined) await deps.store.releaseHold(host.config.id, offer.holdId, now);
  const revHash = rev.value.terms.contractSha256;
  const saved = await saveBooking(
    deps,
    host,
    state.bookingId,
    (s) => {
      const again = pendingOf(s);
      if (!again.ok || again.value.terms.contractSha256 !== revHash)
        return err(invalidState("the revision is no longer pending"));
      const base = offer !== undefined ? withoutProposal(s, offer.proposalId) : s;
      const { pendingRevision: _p, ...meeting } = base.meeting as StoredMeeting;
      // The revision's terms: the change offer's where it named one, else the booking's own.
      const end = offer !== undefined ? offer.end : s.end;
      const place = offer?.place ?? s.place;
      return ok({
        ...base,
        meeting,
        declinedChange: {
          ...(offer !== undefined && { proposalId: offer.proposalId }),
          revision: again.value.terms.revision,
          start: offer?.start ?? s.start,
          ...(end !== undefined && { end }),
          ...(place !== undefined && { place }),
          ending: refusal,
        },
      });
    },
    now,
  );
  if (!saved.ok) return saved;
  await notifyGuest(deps, host, saved.value, "change_declined", now, { refusal });
  return saved;
}

/** A member's no to the pending revision, or their yes taken back before the calendar moved. */
export async function declineRevision(
  deps: BookingDeps,
  hostId: string,
  bookingId: string,
  message: string | undefined,
): UseCase<BookingState> {
  const found = await hostBooking(deps, hostId, bookingId);
  if (!found.ok) return found;
  return dropRevision(deps, found.value.host, found.value.loaded.state, {
    kind: "declined",
    reason: "host_declined",
    message: message ?? "the member said no to the change",
  });
}

/** POST /bookings/{id}/meeting/withdraw: the organizer withdraws the revision, in their words. */
export async function withdrawRevision(
  deps: BookingDeps,
  hostId: string,
  bookingId: string,
  contractSha256: string,
  reason: string,
): UseCase<BookingState> {
  const found = await hostBooking(deps, hostId, bookingId);
  if (!found.ok) return found;
  return dropRevision(
    deps,
    found.value.host,
    found.value.loaded.state,
    { kind: "declined", reason: "organizer_withdrew", message: reason },
    contractSha256,
  );
}

/** Whether the booking's pending revision is past its deadline. */
export const revisionLapsed = (s: BookingState, now: number): boolean => {
  const rev = s.status === "confirmed" ? s.meeting?.pendingRevision : undefined;
  return rev !== undefined && rev.expiresAt <= now;
};

/** The deadline passed: EXPIRED host_did_not_answer, or meeting_incomplete where the member answered. */
export async function lapseRevision(deps: BookingDeps, host: HostRuntime, s: BookingState): Promise<boolean> {
  const rev = s.meeting?.pendingRevision;
  if (rev === undefined) return false;
  const refusal: BookingEnding = rev.answered
    ? {
        kind: "expired",
        reason: "meeting_incomplete",
        message: "not every member said yes to the change in time",
      }
    : {
        kind: "expired",
        reason: "host_did_not_answer",
        message: "the member did not answer the change in time",
      };
  return (await dropRevision(deps, host, s, refusal)).ok;
}

/**
 * Commit of the pending revision's hash (commit.ts): the member's own yes is the one this
 * calendar holds or one of the acceptances; the move is applyMove's one step where the
 * revision names a change offer.
 */
export async function commitRevision(
  deps: BookingDeps,
  host: HostRuntime,
  state: BookingState,
  acceptances: readonly string[],
  awaiting: (members: readonly MeetingAnswerer[]) => BookingRefusal,
): UseCase<BookingState> {
  const rev = pendingOf(state);
  if (!rev.ok) return rev;
  const terms = rev.value.terms;
  const now = deps.clock.now();
  const given = new Map<string, string>();
  for (const text of acceptances) {
    const verified = await verifyAcceptanceOf(deps, host, underRevision(state, rev.value), text, now);
    if (!verified.ok) return verified;
    if (given.has(verified.value.principal)) return err(acceptanceInvalid("two acceptances from one member"));
    given.set(verified.value.principal, text);
  }
  const missing = terms.mustAccept.filter((a) => !given.has(a.principal));
  if (missing.length > 0) return err(awaiting(missing));
  const own = terms.role === "person" ? (given.get(terms.member) ?? rev.value.acceptance) : undefined;
  const hash = terms.contractSha256;
  const adopted = (s: BookingState): StoredMeeting => ({
    ...terms,
    highestRevision: (s.meeting as StoredMeeting).highestRevision,
    ...(own !== undefined && { acceptance: own }),
  });
  const stillPending = (s: BookingState) => s.meeting?.pendingRevision?.terms.contractSha256 === hash;
  // The calendar's answer is now the one given to the revision (§7.9: who said yes to it).
  const answered = rev.value.answer;
  const named = rev.value.proposalId;
  let saved: Result<BookingState, BookingRefusal>;
  if (named !== undefined) {
    const offer = state.proposal;
    if (offer?.proposalId !== named)
      return err(invalidState("the change offer the revision names is no longer held"));
    saved = await applyMove(deps, host, state, offer, state.consent, undefined, (moved) => ({
      ...moved,
      ...(answered !== undefined && { answer: answered }),
      meeting: adopted(moved),
    }));
  } else {
    saved = await saveBooking(
      deps,
      host,
      state.bookingId,
      (s) =>
        stillPending(s) && s.status === "confirmed"
          ? ok({
              ...s,
              sequence: s.sequence + 1,
              ...(answered !== undefined && { answer: answered }),
              meeting: adopted(s),
            })
          : err(contractMismatch(undefined, "the revision is no longer pending")),
      now,
    );
  }
  if (!saved.ok) return saved;
  await notifyGuest(deps, host, saved.value, "change_approved", now);
  return saved;
}
