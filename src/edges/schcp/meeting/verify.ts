/**
 * The SchCP §5.12 checks of the pure module (src/protocol/schcp/meeting) as the core's
 * refusals: each MeetingProblem is 400 INVALID_REQUEST with its own reason (meeting_invalid,
 * acceptance_invalid or person_required), the JSON pointer it names in details.field.
 */
import type { BookingRefusal } from "../../../booking/api.js";
import { refuse } from "../../../booking/bookings/refuse.js";
import type { MeetingProblem } from "../../../protocol/schcp/meeting/index.js";

export function meetingRefusal(problem: MeetingProblem): BookingRefusal {
  return refuse("invalid_request", problem.reason, problem.message, {
    ...(problem.field !== "" && { details: { field: problem.field } }),
  });
}

export const meetingInvalid = (message: string): BookingRefusal =>
  refuse("invalid_request", "meeting_invalid", message);
