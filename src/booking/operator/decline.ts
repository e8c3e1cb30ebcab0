/**
 * The host says no (SchCP §6, §5.7 step 3, §9.2). A pending_host booking becomes declined
 * with a refusal (DECLINED host_declined[:suffix]), its time is freed, the upstream booking
 * cancelled, and the guest gets booking.declined. A guest's move awaiting the host is dropped
 * instead: the booking keeps its time, the held new time is released, declined_change records
 * why (no sequence bump: nothing the guest agreed to changed), and booking.change_declined
 * carries the same refusal.
 */
import type { BookingDeps, HostRuntime, UseCase } from "../api.js";
import { err, ok } from "../../protocol/result.js";
import { endBooking } from "../bookings/cancel.js";
import { bookingView, type BookingView } from "../view.js";
import { invalidState } from "../bookings/refuse.js";
import type { BookingEnding, BookingState, StoredProposal } from "../bookings/state.js";
import { saveBooking } from "../bookings/store.js";
import { notifyGuest } from "../bookings/edges.js";
import { declinedRefusal } from "./refusals.js";
import { hostBooking } from "../bookings/store.js";
import { hostAnswer } from "../answers/decide.js";

export async function declineBooking(
  deps: BookingDeps,
  hostId: string,
  bookingId: string,
  input: { reason?: string; message?: string; timeStillGood?: boolean },
): UseCase<BookingView> {
  const found = await hostBooking(deps, hostId, bookingId);
  if (!found.ok) return found;
  const { host, loaded } = found.value;
  const state = loaded.state;
  const refusal = declinedRefusal(input.reason, input.message);

  if (state.status === "confirmed" && state.proposal?.awaitingHost === true) {
    return dropMove(deps, host, state, state.proposal, refusal);
  }
  if (state.status !== "pending_host")
    return err(invalidState(`a ${state.status} booking cannot be declined`));

  const now = deps.clock.now();
  // §5.11: an open counter ends with the booking it answered (endBooking releases its time).
  const saved = await endBooking(
    deps,
    host,
    state,
    refusal.message,
    "host",
    now,
    (s) =>
      s.status === "declined"
        ? undefined
        : // §7.9: a no is the host's own answer ("person" at a person's calendar), never a rule's.
          { ...s, status: "declined", refusal, answer: hostAnswer(host, now) },
    // §5.9: only when the host says the time is still good.
    input.timeStillGood === true,
  );
  if (!saved.ok) return saved;
  await notifyGuest(deps, host, saved.value, "declined", now, { refusal });
  return ok(bookingView(saved.value, deps.clock.now()));
}

/** §5.7: the booking keeps its time; the move is recorded as declined_change with its refusal. */
export async function dropMove(
  deps: BookingDeps,
  host: HostRuntime,
  state: BookingState,
  move: StoredProposal,
  refusal: BookingEnding,
): UseCase<BookingView> {
  const now = deps.clock.now();
  await deps.store.releaseHold(host.config.id, move.holdId, now);
  const saved = await saveBooking(
    deps,
    host,
    state.bookingId,
    (s) => {
      if (s.proposal?.proposalId !== move.proposalId) return ok(s);
      const { proposal: _p, ...rest } = s;
      return ok({
        ...rest,
        declinedChange: {
          proposalId: move.proposalId,
          start: move.start,
          ...(move.end !== undefined && { end: move.end }),
          ...(move.place !== undefined && { place: move.place }),
          ending: refusal,
        },
      });
    },
    now,
  );
  if (!saved.ok) return saved;
  await notifyGuest(deps, host, saved.value, "change_declined", now, { refusal });
  return ok(bookingView(saved.value, deps.clock.now()));
}
