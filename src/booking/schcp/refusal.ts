/**
 * The core's refusal in SchCP's terms (§9, §9.2): the SchCP edge's half of "one error
 * vocabulary inside, mapped once per edge". Each core code names one SchCP code; reasons pass
 * through (they are registered under that code, test/booking/schcp/refusal-map.test.ts),
 * except the core's own "no grant at all", which SchCP words as a missing mandate (§3.3).
 */
import type { HttpRefusalCode } from "../../protocol/schcp/refusals.js";
import type { BookingRefusal } from "../api.js";
import type { BookingErrorCode } from "../errors.js";

export const SCHCP_CODE: Readonly<Record<BookingErrorCode, HttpRefusalCode>> = {
  invalid_request: "INVALID_REQUEST",
  authority_required: "MANDATE_INVALID",
  authority_invalid: "MANDATE_INVALID",
  authority_scope: "MANDATE_SCOPE",
  authority_limit: "MANDATE_LIMIT",
  approval_required: "OFFER_APPROVAL_REQUIRED",
  not_permitted: "NOT_PERMITTED",
  not_eligible: "NOT_ELIGIBLE",
  not_found: "NOT_FOUND",
  slot_unavailable: "SLOT_UNAVAILABLE",
  contract_mismatch: "CONTRACT_MISMATCH",
  stale_sequence: "STALE_SEQUENCE",
  invalid_state: "INVALID_STATE",
  idempotency_conflict: "IDEMPOTENCY_CONFLICT",
  outside_booking_window: "OUTSIDE_BOOKING_WINDOW",
  out_of_service_area: "OUT_OF_SERVICE_AREA",
  data_not_accepted: "DATA_NOT_ACCEPTED",
  hold_limit: "HOLD_LIMIT",
  rate_limited: "RATE_LIMITED",
  unsupported: "UNSUPPORTED",
  // §8 "There are no payment errors": a host that wants prepayment takes it itself, "through a
  // link it gives in a refusal's contact remedy". What SchCP cannot do here is the booking, so
  // the class is UNSUPPORTED, with the gateway's reason payment_required (refusals.ts).
  payment_required: "UNSUPPORTED",
  upstream_unavailable: "UPSTREAM_UNAVAILABLE",
  internal_error: "INTERNAL_ERROR",
};

const SCHCP_REASON: Readonly<Record<string, string>> = { authority_required: "mandate_invalid" };

/** A core refusal with SchCP's code and reason; everything else as the core said it. */
export interface SchcpRefusal extends Omit<BookingRefusal, "code"> {
  readonly code: HttpRefusalCode;
}

export function schcpRefusal(r: BookingRefusal): SchcpRefusal {
  return { ...r, code: SCHCP_CODE[r.code], reason: SCHCP_REASON[r.reason] ?? r.reason };
}
