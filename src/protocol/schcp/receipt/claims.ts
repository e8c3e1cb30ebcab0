/**
 * Whether a value is a receipt SchCP allows (SchCP §5.3, §5.7): what the host checks before
 * it signs and the agent after it verifies the signature.
 *
 * 1. The closed ReceiptClaims schema, with the booking (and its event) closed too.
 * 2. The receipt's offer_sha256 and its booking's are the same hash (§5.3 MUST); a booking
 *    made outside SchCP has null there and the receipt has none.
 * 3. A move waiting for the host (proposal.awaiting_host) is never held past the booking's
 *    own start (§5.7: the agent MUST refuse one whose expires_at is after it).
 * Field names are JSON pointers into the claims.
 */
import { err, fieldError, ok } from "../../result.js";
import type { FieldError, Result } from "../../result.js";
import { parseInstant } from "../../time/index.js";
import type { ReceiptClaims } from "../types.js";
import { validateSchcp } from "../validate.js";

const invalid = (field: string, message: string): Result<never> =>
  err(fieldError("receipt_invalid", field, message));
const asReceiptError = (e: FieldError): Result<never> => invalid(e.field, e.message);

export function checkReceiptClaims(value: unknown): Result<ReceiptClaims> {
  const schema = validateSchcp("ReceiptClaims", value);
  if (!schema.ok) return asReceiptError(schema.error);
  const claims = schema.value;
  const { booking } = claims;

  if ((claims.offer_sha256 ?? null) !== booking.offer_sha256) {
    return invalid("/offer_sha256", "the receipt and its booking must name the same contract hash");
  }

  const proposal = booking.proposal;
  if (proposal?.awaiting_host === true) {
    const expires = parseInstant(proposal.expires_at, "/booking/proposal/expires_at");
    if (!expires.ok) return asReceiptError(expires.error);
    const start = parseInstant(booking.start, "/booking/start");
    if (!start.ok) return asReceiptError(start.error);
    if (expires.value.epochMs > start.value.epochMs) {
      return invalid(
        "/booking/proposal/expires_at",
        "a move waiting for the host is never held past the booking's start",
      );
    }
  }
  return ok(claims);
}
