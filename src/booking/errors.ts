/**
 * The core's one error vocabulary (docs/ARCHITECTURE.md, One error vocabulary): a closed union of
 * codes, each with the reasons registered under it (the first is the default) and a default
 * message. Every BookingRefusal carries one; each edge maps it once to its protocol's shape:
 * SchCP (schcp/refusal.ts: code, status and reason of §9.2), OSBP (osbp/adapter/refusals.ts:
 * Problem), the operator API (through SchCP's shape). The reason names are shared with
 * SchCP's registry where the rule came from SchCP, so its edge can pass them through; a test
 * checks that every reason here is registered under the SchCP code it maps to.
 */
import type { Money } from "../protocol/money/index.js";

export const BOOKING_ERRORS = {
  invalid_request: [
    "invalid_request",
    "payment_not_accepted",
    "window_too_short",
    "meeting_invalid",
    "acceptance_invalid",
    "person_required",
    "party_size",
  ],
  /** The host acts only under a grant (SchCP requires_mandate) and the request carries none. */
  authority_required: ["authority_required"],
  /** The caller's grant does not verify or has lapsed. */
  authority_invalid: ["mandate_invalid", "mandate_expired"],
  /** The grant does not cover this kind of action or this service. */
  authority_scope: ["not_in_scope", "service_not_allowed", "booking_not_allowed"],
  /** The grant covers the action, not these terms (time, price, count). */
  authority_limit: [
    "outside_window",
    "over_max_price",
    "currency_mismatch",
    "max_bookings_reached",
    "shared_limit_reached",
    "offer_mismatch",
  ],
  /** The person must approve these exact terms first. */
  approval_required: ["closed_approval_required"],
  not_permitted: ["not_a_contact"],
  not_eligible: ["returning_guests_only", "new_guests_only"],
  not_found: ["not_found"],
  slot_unavailable: ["slot_taken", "walk_in_reserve", "availability_unknown"],
  contract_mismatch: ["contract_mismatch"],
  stale_sequence: ["stale_sequence"],
  invalid_state: ["invalid_state", "already_started", "awaiting_members"],
  idempotency_conflict: ["idempotency_conflict"],
  outside_booking_window: [
    "outside_booking_window",
    "min_notice",
    "max_advance",
    "not_yet_released",
    "too_soon",
  ],
  out_of_service_area: ["outside_service_area", "place_required"],
  data_not_accepted: ["free_text_notes"],
  hold_limit: [
    "agent_limit",
    "new_guest_pool_full",
    "attester_pool_full",
    "mandate_limit",
    "waitlist_limit",
    "holds_suspended",
  ],
  rate_limited: ["rate_limited"],
  unsupported: ["unsupported"],
  /**
   * The host's booking system takes this booking only against a payment made up front, which
   * no edge carries (SchCP §8, OSBP "Payment authority is a separate layer"): the person
   * completes it with the business, through the link the host gave when there is one.
   */
  payment_required: ["payment_required"],
  upstream_unavailable: ["upstream_unavailable", "upstream_rate_limited", "host_needs_reconnection"],
  internal_error: ["internal_error"],
} as const satisfies Record<string, readonly string[]>;

export type BookingErrorCode = keyof typeof BOOKING_ERRORS;
export type BookingErrorReason<C extends BookingErrorCode> = (typeof BOOKING_ERRORS)[C][number];

export const BOOKING_ERROR_CODES = Object.keys(BOOKING_ERRORS) as BookingErrorCode[];

export const DEFAULT_ERROR_MESSAGES: Record<BookingErrorCode, string> = {
  invalid_request: "the request is not valid",
  authority_required: "this host acts only under a grant from the person (a mandate)",
  authority_invalid: "the grant is not valid",
  authority_scope: "the grant does not allow this action",
  authority_limit: "the grant's limits do not allow this",
  approval_required: "the person must approve this exact offer",
  not_permitted: "this host accepts requests from its contacts only",
  not_eligible: "this service is not open to this guest",
  not_found: "not found",
  slot_unavailable: "that time is not available",
  contract_mismatch: "the hash does not name the current contract",
  stale_sequence: "the booking has changed since; read it again",
  invalid_state: "the booking or hold is not in a state that allows this",
  idempotency_conflict: "this idempotency key was used with a different request",
  outside_booking_window: "that time is outside the booking window",
  out_of_service_area: "that place is outside the service area",
  data_not_accepted: "this host does not accept free-text notes",
  hold_limit: "too many holds right now; try again shortly",
  rate_limited: "too many requests; try again shortly",
  unsupported: "this host does not support that",
  payment_required:
    "this host takes this booking only with a payment made up front, directly with the business; the gateway takes no payment",
  upstream_unavailable: "the host's booking system is not answering; try again shortly",
  internal_error: "the gateway failed to answer this request; it has been logged",
};

/**
 * What the person or agent can do about a refusal, in the core's terms; SchCP words them as
 * its §9.2 remedies (schcp/refusal.ts). `approve`: the person must approve these exact terms
 * (SchCP's approve_offer names the offer's hash).
 */
export type BookingRemedy =
  | { readonly type: "contact"; readonly phone?: string; readonly url?: string }
  | { readonly type: "retry"; readonly afterMs: number }
  /** An attestation from one of these attesters would admit the person (SchCP §7.5). */
  | { readonly type: "attest"; readonly attesters: readonly string[] }
  | { readonly type: "approve"; readonly termsHash: string };

/** A nearby time that could be held instead of a refused one (SchCP §5.2 alternatives). */
export interface HoldAlternative {
  /** Epoch ms. */
  readonly start: number;
  /** Service end; absent for an open-ended service. */
  readonly end?: number;
  /** Priced at that time; null when the service has no price. */
  readonly price: Money | null;
  readonly total: Money | null;
}

/**
 * Why the host's upstream failed a call, in the core's words: a refusal keeps the failure
 * behind it (BookingRefusal.upstream) for an edge whose protocol names upstream conditions
 * itself (OSBP requires_verification, rate_limited, verification_unsupported). The connector
 * ports state the same codes (src/connectors/ports/result.ts ConnectorErrorCode); a
 * connector's error is assignable to UpstreamFailure (test/booking/domain-types.test.ts).
 */
type UpstreamFailureCode =
  /** The time is no longer free upstream (someone booked it outside the gateway). */
  | "slot_taken"
  /** The platform asked to wait (HTTP 429); retryAfterMs when it said how long. */
  | "rate_limited"
  /** 5xx or an unreadable answer. */
  | "unavailable"
  | "timeout"
  /** The platform wants the customer verified before booking (OSBP requires_verification). */
  | "verification_required"
  | "verification_failed"
  | "not_found"
  /** The platform refused the request as malformed (a gateway or mapping bug). */
  | "invalid_request"
  /** Credentials expired or revoked: the business must reconnect; not retryable. */
  | "unauthorized"
  /** The platform cannot do this at all (e.g. verification on a platform without it). */
  | "unsupported"
  /** The platform books this only against a payment up front, which no edge makes (SchCP §8). */
  | "payment_required";

/** For payment_required: what the person needs to complete the booking with the business. */
export interface PaymentHandoff {
  /** The business's own page to pay or finish the booking on: an absolute https URL, for the person. */
  readonly url?: string;
  /** The amount asked up front, when the platform states it. */
  readonly amount?: Money;
}

/** A failed upstream call. `message` is the platform's text: never shown to an agent as it is. */
export interface UpstreamFailure {
  readonly code: UpstreamFailureCode;
  readonly message: string;
  readonly retryAfterMs?: number;
  /** Why an `unavailable` upstream could not be read, when it is one of the gateway's own bounds. */
  readonly reason?: "upstream_too_large" | "upstream_too_costly" | "expansion_bound";
  /** For verification_required: how the platform will send the code. */
  readonly verificationMethod?: "sms" | "email" | "unknown";
  /** For payment_required: where and how much, when known (kept out of `message`). */
  readonly payment?: PaymentHandoff;
}

/**
 * The upstream failure a refusal stands for, if any: the one the upstream gave, or, for a host
 * whose credentials were revoked earlier (refused without asking, reason
 * host_needs_reconnection), the `unauthorized` it would answer. Undefined for the core's own
 * rules. An edge whose protocol names upstream conditions maps this, and the refusal otherwise.
 */
export function upstreamFailureOf(r: BookingRefusal): UpstreamFailure | undefined {
  if (r.upstream !== undefined) return r.upstream;
  if (r.reason === "host_needs_reconnection") return { code: "unauthorized", message: r.message };
  return undefined;
}

/** A refusal in the core's vocabulary (errors.ts); each edge maps it once to its protocol. */
export interface BookingRefusal {
  readonly code: BookingErrorCode;
  readonly reason: string;
  readonly message: string;
  readonly basis?: Readonly<Record<string, unknown>>;
  readonly retryAfterMs?: number;
  readonly remedies?: readonly BookingRemedy[];
  /** A refused hold's nearest times that could be held instead (slot_unavailable). */
  readonly alternatives?: readonly HoldAlternative[];
  readonly details?: Readonly<Record<string, unknown>>;
  /**
   * The upstream failure behind the refusal, when there was one: an edge whose protocol names
   * upstream conditions itself (OSBP verification_required, rate_limited) maps from it
   * (errors.ts upstreamFailureOf).
   */
  readonly upstream?: UpstreamFailure;
}
