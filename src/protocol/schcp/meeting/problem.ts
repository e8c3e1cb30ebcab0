/**
 * What a meeting check ends in (SchCP §5.12). Each reason is a registered §9.2 reason of
 * 400 INVALID_REQUEST; the edge maps it to the wire. `expired` tells a contract whose exp has
 * passed apart from a malformed one: on the wire it is still meeting_invalid (§5.12 "exp has not
 * passed (meeting_invalid)"), but the core refuses it knowing why, and may still read it.
 */
import type { RefusalReason } from "../refusals.js";

export type MeetingProblemReason = Extract<
  RefusalReason<"INVALID_REQUEST">,
  "meeting_invalid" | "acceptance_invalid" | "person_required"
>;

export interface MeetingProblem {
  readonly reason: MeetingProblemReason;
  readonly message: string;
  /** JSON pointer into the JWS it is about ("/payload/members/1/principal"), "" for all of it. */
  readonly field: string;
  /** Only on a contract whose exp has passed (and nothing else is wrong with it). */
  readonly expired?: true;
}

export function meetingInvalid(message: string, field = ""): MeetingProblem {
  return { reason: "meeting_invalid", message, field };
}

export function acceptanceInvalid(message: string, field = ""): MeetingProblem {
  return { reason: "acceptance_invalid", message, field };
}

export function personRequired(message: string, field = ""): MeetingProblem {
  return { reason: "person_required", message, field };
}
