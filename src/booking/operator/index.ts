/** The host's side (operator credential only): approvals, cancels, attendance, proposals, deadlines. */
export { listBookings, pageBookings } from "./list.js";
export { approveBooking } from "./approve.js";
export { declineBooking } from "./decline.js";
export { hostCancelBooking } from "./host-cancel.js";
export { markAttendance } from "./attendance.js";
export { proposeChange } from "./propose.js";
export { expireOverdue } from "./deadlines.js";
export type { DeadlineReport } from "./deadlines.js";
export { applyUpstreamMove } from "./upstream-move.js";
export type { UpstreamMove, UpstreamMoveOutcome } from "./upstream-move.js";
