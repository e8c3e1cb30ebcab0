/**
 * ReceiptClaims and BookingResponse (SchCP §5.3). Both closed, and so is the booking inside.
 *
 * The spec names a receipt's offer_sha256, retention and consent, and the booking it is
 * "over"; v, iss and iat are ours, as on offers (strict reading: no exp, since a receipt is
 * evidence that does not lapse). A booking made outside SchCP has no contract, so its receipt
 * has neither offer_sha256 nor consent: they come together.
 */
import { closed, numericDate, ref } from "./common.js";
import type { Schema } from "./common.js";

export const receiptDefs: Record<string, Schema> = {
  ReceiptClaims: {
    ...closed(
      {
        v: { const: "0.4" },
        iss: ref("Id"),
        iat: numericDate,
        booking: ref("Booking"),
        offer_sha256: ref("Sha256"),
        retention: ref("Retention"),
        consent: ref("ReceiptConsent"),
      },
      ["v", "iss", "iat", "booking", "retention"],
    ),
    dependentRequired: { offer_sha256: ["consent"], consent: ["offer_sha256"] },
  },
  /**
   * Every operation that returns a booking returns this (§5.3): the booking, its receipt, and
   * the booking's contract as offer, a meeting's contract, and a pending revision's contract
   * (§5.12 pending_contract) where they apply.
   */
  BookingResponse: closed(
    {
      booking: ref("Booking"),
      receipt: ref("CompactJws"),
      offer: ref("CompactJws"),
      contract: ref("CompactJws"),
      pending_contract: ref("CompactJws"),
    },
    ["booking", "receipt"],
  ),
};
