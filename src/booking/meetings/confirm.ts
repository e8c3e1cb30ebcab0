/**
 * A hold confirmed with a meeting contract (SchCP §5.12 "Confirming with a contract"): the
 * booking's first state. The edge has checked the contract against this calendar's own entry
 * and offer; here the calendar's answer is decided.
 *
 * - The organizer's own calendar: tentative, the organizer's signature is their yes.
 * - Another person's calendar: pending_host until the member gives their acceptance; tentative
 *   at once where a rule of theirs answered (answer.ts ruleYes), carrying the acceptance the
 *   calendar signed by that rule (meeting.acceptance, answer by "rule").
 * - A business: its offer is its yes: tentative at once at an instant host, pending_host until
 *   it says yes as the host at one that approves each booking.
 *
 * The deadline is the contract's exp, or the host's approval_by if earlier. No reputation
 * credit until commit ("reputation credit starts at commit").
 */
import type { BookingAnswer, BookingStatus } from "../bookings/state.js";
import type { MeetingRuleYes, MeetingTerms, StoredMeeting } from "./types.js";

export interface MeetingStart {
  readonly status: BookingStatus;
  readonly answer?: BookingAnswer;
  /** pending_host: when it lapses as host_did_not_answer. */
  readonly approvalBy?: number;
  readonly meeting: StoredMeeting;
  readonly creditPending: true;
}

/**
 * `instant`: the business confirms at once (its policy, and its upstream did not hold the
 * booking for it); `approvalBy`: the host's own deadline for a booking it approves; `byRule`:
 * a person member's yes by rule (answer.ts ruleYes).
 */
export function meetingStart(
  terms: MeetingTerms,
  instant: boolean,
  approvalBy: number,
  now: number,
  byRule?: MeetingRuleYes,
): MeetingStart {
  const meeting: StoredMeeting = { ...terms, highestRevision: terms.revision };
  const pending = (): MeetingStart => ({
    status: "pending_host",
    approvalBy: Math.min(terms.expiresAt, approvalBy),
    meeting,
    creditPending: true,
  });
  switch (terms.role) {
    case "organizer":
      return { status: "tentative", answer: { by: "person", at: now }, meeting, creditPending: true };
    case "business":
      return instant
        ? { status: "tentative", answer: { by: "host", at: now }, meeting, creditPending: true }
        : pending();
    case "person":
      return byRule === undefined
        ? pending()
        : {
            status: "tentative",
            answer: byRule.answer,
            meeting: { ...meeting, acceptance: byRule.acceptance },
            creditPending: true,
          };
  }
}

/** When a tentative meeting booking lapses (meeting_incomplete): the contract's deadline. */
export const meetingDeadline = (
  meeting: StoredMeeting | undefined,
  status: BookingStatus,
): number | undefined => (meeting !== undefined && status === "tentative" ? meeting.expiresAt : undefined);
