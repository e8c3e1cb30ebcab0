/**
 * How the host's own answers end a booking, or a change of it, in the core's terms
 * (bookings/state.ts BookingEnding); the SchCP edge words them as §9.2's DECLINED, EXPIRED and
 * CANCELLED refusals (schcp/wire.ts). The operator side reads bookings through hostBooking
 * (bookings/store.ts): the host's credential was checked at the edge (never an agent
 * signature), so only the host and booking need to exist.
 */
import type { BookingEnding } from "../bookings/state.js";

/** host_declined:* carries a host-specific suffix (SchCP §5.7) when the host gave a usable one. */
export const declinedRefusal = (reason?: string, message?: string): BookingEnding => ({
  kind: "declined",
  reason:
    reason !== undefined && /^[A-Za-z0-9_.-]+$/.test(reason) ? `host_declined:${reason}` : "host_declined",
  message: message ?? "the booking was declined",
});

export const expiredRefusal = (): BookingEnding => ({
  kind: "expired",
  reason: "host_did_not_answer",
  message: "the host did not answer in time",
});

export const cancelledRefusal = (message?: string): BookingEnding => ({
  kind: "cancelled",
  reason: "host_cancelled",
  message: message ?? "the host cancelled the booking",
});
