/** Openings' identity and what its public API can do with a booking (README.md here). */
import type { BookingAbilities } from "../ports/bookings.js";
import type { PlatformIdentity } from "../ports/result.js";

/** Path-versioned API: the pin is the /v1 prefix on every request (OSBP "Platform Metadata"). */
export const OPENINGS_PLATFORM: PlatformIdentity = { vendor: "openings", api_version: "v1" };

/**
 * The public API shows a customer's appointments (history, behind verification) but has no
 * by-id readback, move or cancel (README.md).
 */
export const OPENINGS_BOOKING_ABILITIES: BookingAbilities = {
  findByKey: "lookup",
  readback: false,
  move: false,
  cancel: false,
};
