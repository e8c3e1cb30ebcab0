/**
 * A SchCP mandate check's refusal (§3.3, §9.2 MANDATE_*) as the core's BookingRefusal, which
 * the HTTP edge then maps back to the wire once (src/edges/schcp/http/refusal-map.ts).
 */
import type { MandateRefusal, MandateRefusalCode } from "../../protocol/schcp/mandate/index.js";
import type { BookingRefusal } from "../../booking/api.js";
import type { BookingErrorCode } from "../../booking/errors.js";

const FROM_MANDATE: Readonly<Record<MandateRefusalCode, BookingErrorCode>> = {
  MANDATE_INVALID: "authority_invalid",
  MANDATE_SCOPE: "authority_scope",
  MANDATE_LIMIT: "authority_limit",
  OFFER_APPROVAL_REQUIRED: "approval_required",
};

/** A mandate check's refusal as the use case answers it; OFFER_APPROVAL_REQUIRED gets approve_offer (§5.3). */
export function fromMandateRefusal(r: MandateRefusal): BookingRefusal {
  const remedies =
    r.code === "OFFER_APPROVAL_REQUIRED" && typeof r.details?.offer_sha256 === "string"
      ? [{ type: "approve" as const, termsHash: r.details.offer_sha256 }]
      : undefined;
  return {
    code: FROM_MANDATE[r.code],
    reason: r.reason,
    message: r.message,
    ...(r.basis !== undefined && { basis: r.basis }),
    ...(r.details !== undefined && { details: r.details }),
    ...(remedies !== undefined && { remedies }),
  };
}
