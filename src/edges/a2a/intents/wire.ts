/**
 * The A2A REST answers the intents share (A2A §Error Reference, §Standard Error Envelope), and
 * the one mapping of the core's refusal vocabulary (src/booking/errors.ts) to them. Each
 * intent words the few codes the spec names for it (book_session's SLOT_CONFLICT,
 * reschedule_session's SLOT_INVALID); everything else answers here.
 */
import type { BookingRefusal } from "../../../booking/api.js";
import type { IntentOutcome } from "../port.js";

export const SERVICIALO_VERSION = "1.0";

export const answer = (
  httpStatus: number,
  body: Record<string, unknown>,
  retryAfterSec?: number,
): IntentOutcome => ({
  httpStatus,
  body,
  ...(retryAfterSec !== undefined && { retryAfterSec }),
});

export const failure = (
  httpStatus: number,
  error: string,
  code?: string,
  extra?: Record<string, unknown>,
): IntentOutcome => answer(httpStatus, { error, ...(code !== undefined && { code }), ...extra });

export const orgNotFound = (): IntentOutcome => failure(404, "Organization not found or not public");
export const unauthorized = (): IntentOutcome =>
  failure(401, "API key requerida (X-Org-Api-Key)", "UNAUTHORIZED");
export const invalidData = (details: Record<string, unknown>, code?: string): IntentOutcome =>
  failure(400, "Invalid data", code, { details });

/** A refusal the intent did not word itself: the spec's status for its kind. */
export function refusalOutcome(r: BookingRefusal): IntentOutcome {
  const retry = r.retryAfterMs === undefined ? undefined : Math.max(1, Math.ceil(r.retryAfterMs / 1000));
  switch (r.code) {
    case "not_found":
      return failure(404, "Not found");
    case "slot_unavailable":
      return failure(409, "Provider already has a session at this time", "SLOT_CONFLICT");
    case "hold_limit":
    case "rate_limited":
      return answer(429, { error: "Too many requests", code: "RATE_LIMITED" }, retry ?? 1);
    case "payment_required":
      return failure(402, "This service requires prepayment", "PAYMENT_REQUIRED", {
        message: r.message,
      });
    case "upstream_unavailable":
      // The business's platform asked us to wait (its 429 or Retry-After, honoured for every
      // caller): the agent is rate limited too, and told when to come back (Error Codes: "429 |
      // Rate limited | Yes — back off"; Rate Limits: "Retry-After (seconds) on 429").
      if (r.reason === "upstream_rate_limited")
        return answer(429, { error: "Too many requests", code: "RATE_LIMITED" }, retry ?? 1);
      return answer(
        502,
        { servicialo_version: SERVICIALO_VERSION, error: "upstream_unavailable", message: r.message },
        retry,
      );
    case "outside_booking_window":
      return failure(400, "Scheduled time is outside provider availability", "OUTSIDE_PROVIDER_HOURS", {
        reason: r.reason,
      });
    case "invalid_state":
      return failure(409, r.message, "INVALID_STATE");
    case "authority_required":
    case "authority_invalid":
    case "authority_scope":
    case "authority_limit":
    case "approval_required":
    case "not_permitted":
    case "not_eligible":
    case "out_of_service_area":
      // The host does not take this booking from an anonymous agent (a mandate-only or
      // contacts-only host): nothing an A2A client can supply over this edge fixes it.
      return failure(403, r.message, "NOT_PERMITTED", { reason: r.reason });
    case "internal_error":
      return failure(500, "Internal error");
    case "contract_mismatch":
    case "data_not_accepted":
    case "idempotency_conflict":
    case "invalid_request":
    case "stale_sequence":
    case "unsupported":
      return invalidData({ reason: r.reason, message: r.message }, "VALIDATION_ERROR");
  }
}

/** "2026-04-01T13:00:00.000Z" (A2A §2 Slot Result Fields: full UTC datetimes). */
export const utc = (ms: number): string => new Date(ms).toISOString();
