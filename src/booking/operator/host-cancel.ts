/**
 * The host cancels (SchCP §5.8, §6): a pending_host, tentative or confirmed booking becomes
 * cancelled with sequence + 1, a refusal (CANCELLED host_cancelled) saying why, its time
 * freed and the upstream booking cancelled; the guest gets booking.cancelled_by_host with up
 * to five nearby alternatives (§5.8's example event carries them).
 *
 * timeStillGood: whether the booking's own time could still be served (the host cancels for
 * another reason than the time itself). When not, that start is left out of the alternatives
 * (a broken bay, say); this is the gateway's reading of the operator API's flag.
 */
import type { BookingDeps, HostRuntime, UseCase } from "../api.js";
import { err, ok } from "../../protocol/result.js";
import { endBooking } from "../bookings/cancel.js";
import { bookingView, type BookingView } from "../view.js";
import { invalidState, refuse } from "../bookings/refuse.js";
import { ACTIVE_STATUSES } from "../bookings/state.js";
import type { BookingState } from "../bookings/state.js";
import { notifyGuest } from "../bookings/edges.js";
import { cancelledRefusal } from "./refusals.js";
import { hostBooking } from "../bookings/store.js";

const DAY_MS = 86_400_000;
const MAX_ALTERNATIVES = 5;

export async function hostCancelBooking(
  deps: BookingDeps,
  hostId: string,
  bookingId: string,
  input: { message?: string; timeStillGood?: boolean; by?: "host" | "system" },
): UseCase<BookingView> {
  const found = await hostBooking(deps, hostId, bookingId);
  if (!found.ok) return found;
  const { host, loaded } = found.value;
  const state = loaded.state;
  const now = deps.clock.now();
  if (state.status === "cancelled") return ok(bookingView(state, deps.clock.now()));
  if (!ACTIVE_STATUSES.has(state.status))
    return err(invalidState(`a ${state.status} booking cannot be cancelled`));
  if (now >= state.start)
    return err(
      refuse("invalid_state", "already_started", "the booking has started; mark attendance instead"),
    );

  const refusal = cancelledRefusal(input.message);
  const saved = await endBooking(
    deps,
    host,
    state,
    refusal.message,
    input.by ?? "host",
    now,
    (s) =>
      s.status === "cancelled" ? undefined : { ...s, status: "cancelled", sequence: s.sequence + 1, refusal },
    // §5.9: a host's cancellation releases the time to the waitlist only when the host says the
    // time is still good (the bay that broke is not offered to the next guest).
    input.timeStillGood === true,
  );
  if (!saved.ok) return saved;
  const alternatives = await nearbyStarts(host, state, now, input.timeStillGood === true);
  await notifyGuest(deps, host, saved.value, "cancelled_by_host", now, { refusal, alternatives });
  return ok(bookingView(saved.value, deps.clock.now()));
}

/** The upstream's free starts nearest the booking's, within a day either side (a snapshot, §5.1). */
async function nearbyStarts(
  host: HostRuntime,
  state: BookingState,
  now: number,
  keepOwn: boolean,
): Promise<Array<{ start: number; end?: number }>> {
  const free = await host.connector.slots.find({
    serviceId: state.serviceId,
    range: { start: Math.max(now, state.start - DAY_MS), end: state.start + DAY_MS },
    ...(state.partySize !== undefined && { partySize: state.partySize }),
  });
  if (!free.ok) return [];
  return free.value
    .filter((s) => s.start > now && (keepOwn || s.start !== state.start))
    .sort((a, b) => Math.abs(a.start - state.start) - Math.abs(b.start - state.start))
    .slice(0, MAX_ALTERNATIVES)
    .sort((a, b) => a.start - b.start)
    .map((s) => ({ start: s.start, ...(s.end !== undefined && { end: s.end }) }));
}
