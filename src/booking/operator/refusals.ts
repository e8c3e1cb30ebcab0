/**
 * The refusals the host's own answers carry (§9.2). The operator side reads bookings through
 * hostBooking (bookings/store.ts): the host's credential was checked at the edge (never an
 * agent signature), so only the host and booking need to exist.
 */
import { refusal } from "../../protocol/schcp/refusals.js";
import type { RefusalError } from "../../protocol/schcp/types.js";

/** §9.2 booking refusals (DECLINED, EXPIRED, CANCELLED), through the registry. */
export const declinedRefusal = (reason?: string, message?: string): RefusalError =>
  refusal("DECLINED", {
    // host_declined:* carries a host-specific suffix (§5.7) when the host gave a usable one.
    reason:
      reason !== undefined && /^[A-Za-z0-9_.-]+$/.test(reason) ? `host_declined:${reason}` : "host_declined",
    ...(message !== undefined && { message }),
  }).body.error;

export const expiredRefusal = (): RefusalError =>
  refusal("EXPIRED", { reason: "host_did_not_answer", message: "the host did not answer in time" }).body
    .error;

export const cancelledRefusal = (message?: string): RefusalError =>
  refusal("CANCELLED", { reason: "host_cancelled", ...(message !== undefined && { message }) }).body.error;
