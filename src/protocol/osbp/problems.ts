/**
 * The protocol-meaningful Problem codes of OSBP "Result Envelope" (the codes-in-use table),
 * each with its default English message and retryable flag. Agents branch on `code` only;
 * `message` is explanatory prose, never a parsing target.
 */

export const PROBLEM_CODES = [
  "invalid_mandate",
  "mandate_expired",
  "action_not_allowed",
  "organization_not_allowed",
  "service_not_allowed",
  "schedule_not_allowed",
  "provider_unknown",
  "provider_not_allowed",
  "slot_too_early",
  "slot_too_late",
  "price_exceeds_mandate",
  "policy_fee_exceeds_mandate",
  "currency_mismatch",
  "requires_payment_handoff",
  "requires_consultation_handoff",
  "requires_user_confirmation",
  "requires_verification",
  "verification_failed",
  "slot_taken",
  "idempotency_conflict",
  "booking_not_found",
  "booking_status_requires_verification",
  "rate_limited",
  "internal_adapter_error",
] as const;

export type ProblemCode = (typeof PROBLEM_CODES)[number];

/**
 * Adapters may emit their own codes (OSBP: "for example missing_config or
 * invalid_verification_purpose"). `string & {}` keeps editor completion for the protocol set.
 */
export type AnyProblemCode = ProblemCode | (string & {});

/** OSBP "Result Envelope": a failed call's problem. */
export interface Problem {
  code: AnyProblemCode;
  /** English prose, not a parsing target (OSBP "Result Envelope"). */
  message: string;
  retryable: boolean;
}

interface ProblemDefault {
  readonly message: string;
  readonly retryable: boolean;
}

/**
 * Defaults from the spec's code table. The table marks requires_verification, slot_taken and
 * rate_limited retryable. requires_user_confirmation defaults to its fail-closed validator form
 * (not retryable, no token); the approval gate's challenge form sets retryable itself.
 */
export const PROBLEM_DEFAULTS: Readonly<Record<ProblemCode, ProblemDefault>> = {
  invalid_mandate: {
    message: "BookingMandate is missing a required field, has a malformed field, or mixes time conventions",
    retryable: false,
  },
  mandate_expired: { message: "BookingMandate expires_at is in the past", retryable: false },
  action_not_allowed: { message: "The tool is not in BookingMandate.allowed_actions", retryable: false },
  organization_not_allowed: {
    message: "The organization is outside the BookingMandate scope",
    retryable: false,
  },
  service_not_allowed: { message: "The service is outside the BookingMandate scope", retryable: false },
  schedule_not_allowed: { message: "The schedule is outside the BookingMandate scope", retryable: false },
  provider_unknown: {
    message: "The slot does not identify the provider the BookingMandate scope requires",
    retryable: false,
  },
  provider_not_allowed: { message: "The provider is outside the BookingMandate scope", retryable: false },
  slot_too_early: { message: "The slot starts before BookingMandate.earliest_start", retryable: false },
  slot_too_late: { message: "The slot ends after BookingMandate.latest_end", retryable: false },
  price_exceeds_mandate: {
    message: "Selected service or slot price exceeds BookingMandate.max_price",
    retryable: false,
  },
  policy_fee_exceeds_mandate: {
    message: "The required payment or policy fee exceeds BookingMandate.max_extra_fee",
    retryable: false,
  },
  currency_mismatch: {
    message:
      "The selected price or fee currency does not match the BookingMandate cap currency; a new user approval is needed",
    retryable: false,
  },
  requires_payment_handoff: {
    message: "The BookingMandate does not allow the required payment or policy fee; hand off to the merchant",
    retryable: false,
  },
  requires_consultation_handoff: {
    message: "The service requires a consultation or quote workflow OSBP cannot drive; use handoff.request",
    retryable: false,
  },
  requires_user_confirmation: {
    message:
      "The booking cannot be safely bounded by the BookingMandate (unknown payment requirement or non-fixed amount); explain the blocking fact and use handoff.request",
    retryable: false,
  },
  requires_verification: {
    message: "The platform requires customer verification before booking; call verification.send, then retry",
    retryable: true,
  },
  verification_failed: {
    message:
      "The verification code was rejected (wrong or expired); send a new code, then retry booking.create",
    retryable: false,
  },
  slot_taken: { message: "The selected slot is no longer available", retryable: true },
  idempotency_conflict: {
    message: "The idempotency_key was already used with a different payload",
    retryable: false,
  },
  booking_not_found: { message: "No appointment matches the status query", retryable: false },
  booking_status_requires_verification: {
    message:
      "Appointment history is gated behind a verification step read tools cannot complete; rely on the booking.create receipt or hand off",
    retryable: false,
  },
  rate_limited: {
    message: "The booking platform is rate limiting requests; back off and retry",
    retryable: true,
  },
  internal_adapter_error: {
    message: "The adapter failed unexpectedly; the failure was recorded",
    retryable: false,
  },
};

export function isProblemCode(code: unknown): code is ProblemCode {
  return typeof code === "string" && (PROBLEM_CODES as readonly string[]).includes(code);
}

/** What a caller may override beyond the message. */
export type ProblemExtra = Partial<Pick<Problem, "retryable">>;

/**
 * Builds a Problem with the code's default message and retryable flag unless overridden.
 * An adapter-specific code has no default: it is not retryable and its message names the code.
 *
 * A Problem has exactly code, message and retryable: the published problem schema
 * (schemas/v0.1.0/problem.schema.json, additionalProperties false) allows no other member, so
 * an offending input member is named in the message text instead.
 */
export function problem(code: AnyProblemCode, message?: string, extra: ProblemExtra = {}): Problem {
  const defaults: ProblemDefault = isProblemCode(code)
    ? PROBLEM_DEFAULTS[code]
    : { message: `Adapter-specific problem: ${code}`, retryable: false };
  return {
    code,
    message: message ?? defaults.message,
    retryable: extra.retryable ?? defaults.retryable,
  };
}
