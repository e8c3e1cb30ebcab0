/**
 * What every capability answers with: a result that carries the metadata of the upstream call
 * that produced it (OSBP UpstreamMeta), on success and on failure alike. There is no shared
 * "last call" slot: two concurrent calls each get their own metadata (docs/ARCHITECTURE.md, Upstream requests).
 */
import type { Money } from "../../protocol/money/index.js";
import type { Err, Ok } from "../../protocol/result.js";
import type { PlatformIdentity, UpstreamMeta } from "../../protocol/upstream-meta.js";

/** The platform's identity and each call's metadata (OSBP PlatformIdentity, UpstreamMeta). */
export type { PlatformIdentity, UpstreamMeta };

export type ConnectorErrorCode =
  /** The time is no longer free upstream (someone booked it outside the gateway). */
  | "slot_taken"
  /** HTTP 429; retryAfterMs when the platform said. */
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
  /** Credentials expired or revoked (HTTP 401/403): the business must reconnect; not retryable. */
  | "unauthorized"
  /** The connector cannot do this at all (e.g. verification on a platform without it). */
  | "unsupported"
  /**
   * The platform books this only against a payment the gateway never makes (OSBP "Payment
   * authority is a separate layer"; SchCP §8): the person completes it with the business.
   * A definitive answer, not a failing upstream: never retried, and host health is unchanged.
   * `payment` carries what the platform (or the business's configuration) said of it.
   */
  | "payment_required";

/**
 * For payment_required: what the person needs to complete the booking with the business.
 * Each member only when known; none of it ever comes from the agent.
 */
export interface PaymentHandoff {
  /** The business's own page to pay or finish the booking on: an absolute https URL, for the person. */
  readonly url?: string;
  /** The amount asked up front, when the platform states it. */
  readonly amount?: Money;
}

export type UpstreamFailureReason = "upstream_too_large" | "upstream_too_costly" | "expansion_bound";

/**
 * A failed upstream call. `C` widens the codes for the capabilities that have their own
 * (calendar sync: cursor_expired; event writer: precondition_failed), so the platform paths
 * keep an exhaustive switch over ConnectorErrorCode.
 */
export interface ConnectorError<C extends string = ConnectorErrorCode> {
  readonly code: C;
  readonly message: string;
  readonly retryAfterMs?: number;
  /**
   * Why an `unavailable` upstream could not be read, when it is one of the gateway's own bounds
   * (connectors/http/read-body.ts): its answer was over the byte cap, or too costly to parse.
   */
  readonly reason?: UpstreamFailureReason;
  /** For verification_required: how the platform will send the code. */
  readonly verificationMethod?: "sms" | "email" | "unknown";
  /** For payment_required: where and how much, when known (kept out of `message`). */
  readonly payment?: PaymentHandoff;
}

/** A result with the metadata of the call that made it (absent only when no call was made). */
export type ConnectorResult<T, C extends string = ConnectorErrorCode> = (Ok<T> | Err<ConnectorError<C>>) & {
  readonly upstream?: UpstreamMeta;
};
