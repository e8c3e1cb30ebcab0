/**
 * The guest cancels through an edge without a SchCP caller (Servicialo A2A cancel_session with
 * `cancelledBy: "client"`, asked by the organization on its client's behalf): the same ending
 * as SchCP §5.6's guest cancel (schcp/cancel.ts), recorded as the guest's: cancelled, sequence
 * + 1, no refusal, the time freed and the upstream told who cancelled. Cancelling a cancelled
 * booking returns it unchanged.
 */
import { ok } from "../../protocol/result.js";
import type { BookingDeps, UseCase } from "../api.js";
import { canCancel, endBooking } from "../bookings/cancel.js";
import { hostBooking } from "../bookings/store.js";
import { bookingView, type BookingView } from "../view.js";

export async function guestCancelBooking(
  deps: BookingDeps,
  hostId: string,
  bookingId: string,
  input: { readonly reason?: string },
): UseCase<BookingView> {
  const found = await hostBooking(deps, hostId, bookingId);
  if (!found.ok) return found;
  const { host, loaded } = found.value;
  const state = loaded.state;
  if (state.status === "cancelled") return ok(bookingView(state, deps.clock.now()));
  const now = deps.clock.now();
  const cancellable = canCancel(state, now);
  if (!cancellable.ok) return cancellable;
  const saved = await endBooking(deps, host, state, input.reason, "guest", now, (s) =>
    s.status === "cancelled" ? undefined : { ...s, status: "cancelled", sequence: s.sequence + 1 },
  );
  if (!saved.ok) return saved;
  // §5.6: a booking that never became final counts like a released hold (§7.3).
  if (state.status !== "confirmed") {
    await deps.store.recordOutcome({ kind: "agent", id: state.agentKey }, "released", now);
  }
  return ok(bookingView(saved.value, deps.clock.now()));
}
