/**
 * POST /bookings/{booking_id}/cancel (SchCP §5.6). Before the start it always succeeds, costs
 * nothing and records nothing: status cancelled, sequence + 1, a fresh receipt, the upstream
 * booking cancelled and the time freed. After the start it is 409 INVALID_STATE
 * already_started (attendance is the host's to declare, §6). Cancelling a cancelled booking
 * returns it unchanged.
 */
import type { BookingDeps, BookingRefusal, Caller, HostRuntime, UseCase } from "../api.js";
import { err, ok } from "../../protocol/result.js";
import type { Result } from "../../protocol/result.js";
import type { BookingResponse, CancelRequest } from "../../protocol/schcp/types.js";
import { authorizeOnBooking, bookingAction } from "./access.js";
import { bookingResponse } from "./receipt.js";
import { invalidState, refuse, upstreamRefusal } from "./refuse.js";
import { ACTIVE_STATUSES } from "./state.js";
import type { BookingState } from "./state.js";
import { hostBooking, saveBooking } from "./store.js";

export async function cancelBooking(
  deps: BookingDeps,
  hostId: string,
  caller: Caller,
  bookingId: string,
  body: CancelRequest,
): UseCase<BookingResponse> {
  const found = await hostBooking(deps, hostId, bookingId);
  if (!found.ok) return found;
  const { host, loaded } = found.value;
  const state = loaded.state;
  const allowed = await authorizeOnBooking(deps.store, caller, state, bookingAction("cancel", state));
  if (!allowed.ok) return allowed;

  if (state.status === "cancelled") return ok(bookingResponse(state, host));
  const now = deps.clock.now();
  const cancellable = canCancel(state, now);
  if (!cancellable.ok) return cancellable;

  const saved = await endBooking(deps, host, state, body.reason, now, (s) =>
    s.status === "cancelled" ? undefined : { ...s, status: "cancelled", sequence: s.sequence + 1 },
  );
  if (!saved.ok) return saved;
  // §5.6: a booking that never became final counts like a released hold (§7.3).
  if (state.status !== "confirmed") {
    await deps.store.recordOutcome({ kind: "agent", id: state.agentKey }, "released", now);
  }
  return ok(bookingResponse(saved.value, host));
}

/** §5.6: a confirmed, pending_host or tentative booking whose start has not passed. */
export function canCancel(state: BookingState, now: number): Result<void, BookingRefusal> {
  if (!ACTIVE_STATUSES.has(state.status)) return err(invalidState(`the booking is ${state.status}`));
  if (now >= state.start) {
    return err(
      refuse("INVALID_STATE", "already_started", "the booking has started; attendance is the host's to mark"),
    );
  }
  return ok(undefined);
}

/**
 * Ends a booking (cancelled, declined, expired). The upstream booking is cancelled first, so
 * one the platform still holds never reads as ended here; the platform's "not found" means it
 * is gone there already. Then the booking's time and any held change are freed, and the state
 * `end` returns is written without its pending proposal. `end` answers undefined to write
 * nothing: the booking already ended, or is no longer in the state this ending was for.
 */
export async function endBooking(
  deps: BookingDeps,
  host: HostRuntime,
  state: BookingState,
  upstreamReason: string | undefined,
  now: number,
  end: (stored: BookingState) => BookingState | undefined,
): Promise<Result<BookingState, BookingRefusal>> {
  const upstream = await host.connector.bookings.cancel(state.upstreamId, upstreamReason);
  if (!upstream.ok && upstream.error.code !== "not_found") return err(upstreamRefusal(upstream.error));
  await freeTime(deps, host, state, now);
  return saveBooking(
    deps.store,
    host,
    state.bookingId,
    (stored) => {
      const ended = end(stored);
      if (ended === undefined) return ok(stored);
      const { proposal: _dropped, ...rest } = ended;
      return ok(rest);
    },
    now,
  );
}

/** Frees the booking's time and any change offer's held time (§6 "frees its time"). */
async function freeTime(
  deps: BookingDeps,
  host: HostRuntime,
  state: BookingState,
  now: number,
): Promise<void> {
  const hostId = host.config.id;
  await deps.store.releaseBooking(hostId, state.bookingId, now);
  if (state.proposal !== undefined) await deps.store.releaseHold(hostId, state.proposal.holdId, now);
}
