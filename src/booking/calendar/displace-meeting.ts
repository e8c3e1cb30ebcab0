/**
 * A meeting member's booking whose time a calendar sync shows busy (SchCP §5.8 "Displaced
 * bookings", §5.12), once no other free unit could take it (displace.ts step 1).
 *
 * §5.8's other answers do not fit a meeting: "Otherwise the host offers the nearest other time
 * as a host change offer" — but a meeting booking "is not countered this way" (§5.11), and on a
 * confirmed one "a host proposal on one is refused: meeting_invalid" (§5.12). A new time is a new
 * contract that every member must answer, which only the organizer can write. And leaving the
 * booking standing would let the organizer commit it ("Nothing is confirmed on any calendar
 * until every member has said yes", §5.12), confirming a meeting at a time this calendar shows
 * taken: the overbooking §5.8 forbids.
 *
 * So, before commit (pending_host or tentative), the calendar says no: "A member's calendar may
 * decline (§9.2 DECLINED)" (§5.12 "Ending without a meeting"). The booking is declined as if it
 * had never answered (its acceptance dropped, sequence + 1 where a yes stood, as for a member
 * taking back their yes), its time comes free, the event is cancelled, and the organizer hears
 * booking.declined, so its agent "seeing one member's booking end, cancels the rest". The no is
 * the calendar's own: "A no is the host's own answer, so a declined booking's answer is by:
 * "host", or by: "person" at a person's calendar" (§7.9); the busy time is the calendar's own
 * entry, never a rule's ("Rules only ever say yes"). The refusal says why in words that name
 * nobody: DECLINED host_declined:calendar_busy.
 *
 * A confirmed meeting is not ended by the sync: every member said yes, and only the member may
 * back out (§5.12 "Backing out"). It is reported to the host as unresolved ("Bookings with
 * neither are reported to the host as unresolved", §5.8), who backs out or keeps it.
 */
import type { BookingDeps, UseCase } from "../api.js";
import { hostAnswer } from "../answers/decide.js";
import { endBooking } from "../bookings/cancel.js";
import { notifyGuest } from "../bookings/edges.js";
import { invalidState } from "../bookings/refuse.js";
import type { BookingEnding, BookingState } from "../bookings/state.js";
import { hostBooking } from "../bookings/store.js";
import { err } from "../../protocol/result.js";

export const CALENDAR_BUSY: BookingEnding = {
  kind: "declined",
  reason: "host_declined:calendar_busy",
  message: "The time is no longer free in this calendar.",
};

const open = (s: BookingState): boolean =>
  s.meeting !== undefined && (s.status === "pending_host" || s.status === "tentative");

/**
 * Declines a pending_host or tentative meeting booking whose time (`start`, as the sync saw
 * it) the calendar shows busy. A booking that moved, was committed or ended meanwhile is left
 * as it is (INVALID_STATE).
 */
export async function declineBusyMeeting(
  deps: BookingDeps,
  hostId: string,
  bookingId: string,
  start: number,
): UseCase<BookingState> {
  const found = await hostBooking(deps, hostId, bookingId);
  if (!found.ok) return found;
  const { host, loaded } = found.value;
  const state = loaded.state;
  if (!open(state) || state.start !== start)
    return err(invalidState(`a ${state.status} booking is not declined for a busy calendar`));
  const now = deps.clock.now();
  const refusal = CALENDAR_BUSY;
  const saved = await endBooking(deps, host, state, refusal.message, "host", now, (s) => {
    if (!open(s) || s.start !== start || s.meeting === undefined) return undefined;
    const { approvalBy: _a, meeting, ...rest } = s;
    const { acceptance: _given, ...withoutAcceptance } = meeting;
    return {
      ...rest,
      status: "declined",
      refusal,
      answer: hostAnswer(host, now),
      meeting: withoutAcceptance,
      ...(s.status === "tentative" && { sequence: s.sequence + 1 }),
    };
  });
  if (!saved.ok) return saved;
  if (saved.value.status !== "declined") return err(invalidState(`the booking is ${saved.value.status}`));
  await notifyGuest(deps, host, saved.value, "declined", now, { refusal });
  return saved;
}
