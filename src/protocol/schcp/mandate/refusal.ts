/**
 * Constructors for the refusals a mandate check ends in, so each reason string is
 * written once. Reasons are typed against the SchCP §9.2 registry (../refusals.ts);
 * most MANDATE_SCOPE and MANDATE_LIMIT reasons are the gateway's own registrations,
 * since §3.3 names none for them.
 */
import type { RefusalReason } from "../refusals.js";
import type { MandateRefusal } from "./types.js";

type Extra = Pick<MandateRefusal, "field" | "basis" | "details">;

/** 401 MANDATE_INVALID: every verification failure other than a passed exp (§3.3 check 3). */
export function mandateInvalid(
  message: string,
  field?: string,
  extra: Omit<Extra, "field"> = {},
): MandateRefusal {
  return withField({ code: "MANDATE_INVALID", reason: "mandate_invalid", message, ...extra }, field);
}

/** 401 MANDATE_INVALID, mandate_expired: tells the agent to ask for a fresh mandate. */
export function mandateExpired(message: string, field?: string): MandateRefusal {
  return withField({ code: "MANDATE_INVALID", reason: "mandate_expired", message }, field);
}

export type ScopeReason = RefusalReason<"MANDATE_SCOPE">;

/** 403 MANDATE_SCOPE (§3.3 check 5, the bookings and services constraints). */
export function mandateScope(reason: ScopeReason, message: string, extra: Extra = {}): MandateRefusal {
  return { code: "MANDATE_SCOPE", reason, message, ...extra };
}

export type LimitReason = RefusalReason<"MANDATE_LIMIT">;

/** 403 MANDATE_LIMIT (§3.3 check 6, the closed-mandate rule of §5.3). */
export function mandateLimit(reason: LimitReason, message: string, extra: Extra = {}): MandateRefusal {
  return { code: "MANDATE_LIMIT", reason, message, ...extra };
}

/** 403 OFFER_APPROVAL_REQUIRED (§5.3 policies.closed_mandate "always"). */
export function offerApprovalRequired(offerSha256: string): MandateRefusal {
  return {
    code: "OFFER_APPROVAL_REQUIRED",
    reason: "closed_approval_required",
    message:
      "this host requires the principal to approve the offer itself: a root mandate carrying its offer_sha256",
    basis: { policy: "closed_mandate", value: "always" },
    details: { offer_sha256: offerSha256 },
  };
}

function withField(refusal: MandateRefusal, field: string | undefined): MandateRefusal {
  return field === undefined ? refusal : { ...refusal, field };
}
