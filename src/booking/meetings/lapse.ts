/**
 * The contract's deadline passed on a tentative meeting booking (SchCP §5.12 "Ending without
 * a meeting"): it lapses as EXPIRED meeting_incomplete and its time comes free. A booking
 * still pending_host lapses at the same deadline through the approval runner
 * (operator/deadlines.ts), as host_did_not_answer: its approval_by is the contract's exp or
 * earlier (confirm.ts). Run by the deadline runner over the store's due set.
 */
import type { BookingDeps, HostRuntime } from "../api.js";
import { endBooking } from "../bookings/cancel.js";
import { notifyGuest } from "../bookings/edges.js";
import type { BookingEnding, BookingState } from "../bookings/state.js";
import { meetingDeadline } from "./confirm.js";

const incomplete = (): BookingEnding => ({
  kind: "expired",
  reason: "meeting_incomplete",
  message: "not every member accepted the meeting in time",
});

/** Whether the booking is a tentative meeting booking past its contract's deadline. */
export function meetingLapsed(state: BookingState, now: number): boolean {
  const by = meetingDeadline(state.meeting, state.status);
  return by !== undefined && by <= now;
}

/** True when this call ended the booking. */
export async function lapseMeeting(
  deps: BookingDeps,
  host: HostRuntime,
  state: BookingState,
  now: number,
): Promise<boolean> {
  const refusal = incomplete();
  const saved = await endBooking(deps, host, state, refusal.message, "system", now, (s) =>
    meetingLapsed(s, now) ? { ...s, status: "expired", refusal } : undefined,
  );
  if (!saved.ok || saved.value.status !== "expired") return false;
  await notifyGuest(deps, host, saved.value, "expired", now, { refusal });
  return true;
}
