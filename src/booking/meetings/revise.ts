/**
 * POST /bookings/{id}/meeting on a meeting booking still pending_host or tentative (SchCP
 * §5.12 Revisions), once the edge has verified the revised contract against this calendar's
 * entry: the same meeting, organizer and member, a higher revision than any this calendar was
 * handed. The booking names the new hash, drops any earlier acceptance and is answered again
 * as on confirm (confirm.ts meetingStart), sequence + 1 (§6).
 *
 * Only a revision whose member entry names the booking's current offer is taken here; one that
 * names an open change offer (a new time or place) is refused by the edge as CONTRACT_MISMATCH.
 */
import type { BookingDeps, BookingRefusal, UseCase } from "../api.js";
import { err, ok } from "../../protocol/result.js";
import { invalidState, staleSequence } from "../bookings/refuse.js";
import type { BookingState } from "../bookings/state.js";
import { hostBooking, saveBooking } from "../bookings/store.js";
import { meetingInvalid } from "./answer.js";
import { meetingStart } from "./confirm.js";
import type { MeetingTerms, StoredMeeting } from "./types.js";

/** The checks a revision must pass against the booking as it stands. */
export function revisionRefusal(
  state: BookingState,
  sequence: number,
  terms: MeetingTerms,
): BookingRefusal | undefined {
  const m: StoredMeeting | undefined = state.meeting;
  if (m === undefined) return meetingInvalid("this booking is not part of a meeting");
  if (state.status !== "pending_host" && state.status !== "tentative")
    return invalidState(`a ${state.status} meeting booking is not revised this way`);
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
): UseCase<BookingState> {
  const found = await hostBooking(deps, hostId, bookingId);
  if (!found.ok) return found;
  const { host } = found.value;
  const now = deps.clock.now();
  const policies = host.config.policies;
  return saveBooking(
    deps,
    host,
    bookingId,
    (s) => {
      const refused = revisionRefusal(s, sequence, terms);
      if (refused !== undefined) return err(refused);
      const approvalBy = Math.min(now + policies.approvalTimeoutMs, s.start);
      const next = meetingStart(terms, policies.confirmation === "instant", approvalBy, now);
      const { answer: _a, approvalBy: _b, meeting: _m, ...rest } = s;
      return ok({
        ...rest,
        status: next.status,
        sequence: s.sequence + 1,
        ...(next.answer !== undefined && { answer: next.answer }),
        ...(next.approvalBy !== undefined && { approvalBy: next.approvalBy }),
        creditPending: true,
        meeting: next.meeting,
      });
    },
    now,
  );
}
