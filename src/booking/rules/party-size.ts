/**
 * §4.1: "A service states party_size: {min, max}; a request outside it is 400
 * INVALID_REQUEST" (reason party_size, the gateway's own registration). A service that
 * states no range takes any party; its resources' capacity still bounds it.
 */
import type { BookingRefusal, ServiceRules } from "../api.js";
import { bookingRefusal } from "./refusal.js";

export function checkPartySize(
  range: ServiceRules["partySize"],
  partySize: number,
): BookingRefusal | undefined {
  const basis =
    range === undefined ? { policy: "party_size" } : { policy: "party_size", min: range.min, max: range.max };
  if (!Number.isSafeInteger(partySize) || partySize < 1) {
    return bookingRefusal("INVALID_REQUEST", {
      reason: "party_size",
      message: "party_size is a whole number of people, at least 1",
      basis,
    });
  }
  if (range !== undefined && (partySize < range.min || partySize > range.max)) {
    return bookingRefusal("INVALID_REQUEST", {
      reason: "party_size",
      message: `this service takes parties of ${range.min} to ${range.max}`,
      basis,
    });
  }
  return undefined;
}
