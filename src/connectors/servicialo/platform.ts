/** Servicialo's identity and what its REST API can do with a session (README.md here). */
import type { BookingAbilities } from "../ports/bookings.js";
import type { PlatformIdentity } from "../ports/result.js";

/**
 * Servicialo has no request-side version (no header, no path segment): the pin recorded is the
 * documented spec version, servicialo-a2a v1.2.0 (retrieved 2026-12), and
 * the answers' `servicialo_version` body member is what drifts visibly (OSBP "Platform Metadata").
 */
export const SERVICIALO_PLATFORM: PlatformIdentity = { vendor: "servicialo", api_version: "1.2.0" };

/**
 * Servicialo v1.2.0 REST has no session read, list or search (README.md "Idempotency"): a key
 * is found only in this process's memory, and a lost create only proven absent.
 */
export const SERVICIALO_BOOKING_ABILITIES: BookingAbilities = {
  findByKey: "none",
  readback: false,
  move: true,
  cancel: true,
};
