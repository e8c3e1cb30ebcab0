/**
 * POST /bookings/{booking_id}/cancel (SchCP §5.6). Before the start it always succeeds, costs
 * nothing and records nothing: status cancelled, sequence + 1, a fresh receipt, the upstream
 * booking cancelled and the time freed. After the start it is 409 INVALID_STATE
 * already_started (attendance is the host's to declare, §6). Cancelling a cancelled booking
 * returns it unchanged.
 */
import type { SchcpCaller } from "./caller.js";
import type { BookingDeps, UseCase } from "../../booking/api.js";
import { ok } from "../../protocol/result.js";
import type { BookingResponse, CancelRequest } from "../../protocol/schcp/types.js";
import { canCancel, endBooking } from "../../booking/bookings/cancel.js";
import { authorizeOnBooking, bookingAction } from "./access.js";
import { schcpHostBooking } from "./booking.js";
import { bookingResponse } from "./receipt.js";

export async function cancelBooking(
  deps: BookingDeps,
  hostId: string,
  caller: SchcpCaller,
  bookingId: string,
  body: CancelRequest,
): UseCase<BookingResponse> {
  const found = await schcpHostBooking(deps, hostId, bookingId);
  if (!found.ok) return found;
  const { host, loaded } = found.value;
  const state = loaded.state;
  const allowed = await authorizeOnBooking(deps.store, caller, state, bookingAction("cancel", state));
  if (!allowed.ok) return allowed;

  if (state.status === "cancelled") return ok(bookingResponse(state, host));
  const now = deps.clock.now();
  const cancellable = canCancel(state, now);
  if (!cancellable.ok) return cancellable;

  const saved = await endBooking(deps, host, state, body.reason, "guest", now, (s) =>
    s.status === "cancelled" ? undefined : { ...s, status: "cancelled", sequence: s.sequence + 1 },
  );
  if (!saved.ok) return saved;
  // §5.6: a booking that never became final counts like a released hold (§7.3).
  if (state.status !== "confirmed") {
    await deps.store.recordOutcome({ kind: "agent", id: state.agentKey }, "released", now);
  }
  return ok(bookingResponse(saved.value, host));
}
