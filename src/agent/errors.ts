/**
 * What can go wrong for an agent, kept apart from the wire refusal it may carry: a host that
 * said no in the §9.2 shape is a "refusal"; a host whose answer an agent MUST NOT act on
 * (malformed JSON, a closed schema violated, a bad signature on an offer or receipt) is one
 * of the "*_invalid" codes, so callers can never mistake a broken answer for a refusal.
 */
import type { RefusalError } from "../protocol/schcp/types.js";

export type AgentErrorCode =
  /** fetch failed: nothing answered, or the connection broke. */
  | "network"
  /** The host refused, in the §9.2 shape; `refusal` says why. */
  | "refusal"
  /** The answer is not what SchCP allows (strict JSON §3.1, closed schemas §5.2/§5.3, version §3.1). */
  | "invalid_response"
  /** A discovery or operator document the agent must not use (§2.1–§2.3). */
  | "invalid_discovery"
  /** No rule of §2.2 authorizes the endpoint a discovery document names. */
  | "endpoint_not_authorized"
  /** The hold's signed offer fails verification, or the hold does not match it (§5.2). */
  | "offer_invalid"
  /** The receipt fails verification, or does not match the booking or the agent's own records (§5.3). */
  | "receipt_invalid"
  /** A URL the SDK will not send a request to (plain http off loopback, unparseable). */
  | "invalid_url"
  /** A mandate the agent cannot present here: an SD-JWT VC mandate that does not name the host (§3.4). */
  | "mandate_unusable"
  /** A meeting contract, rule or acceptance the SDK will not sign or use (§5.12, §7.9). */
  | "meeting_invalid";

export interface AgentError {
  readonly code: AgentErrorCode;
  readonly message: string;
  /** JSON pointer (or header name) of what is wrong, when it is one field. */
  readonly field?: string;
  /** HTTP status of the answer, when there was one. */
  readonly status?: number;
  /** The host's refusal, for code "refusal". */
  readonly refusal?: RefusalError;
  /** Retry-After in seconds, when the host sent one (§7.2). */
  readonly retryAfterSec?: number;
}

export const agentError = (
  code: AgentErrorCode,
  message: string,
  extra: Omit<AgentError, "code" | "message"> = {},
): AgentError => ({ code, message, ...extra });

/** One line for logs and the demo: "refusal 409 SLOT_UNAVAILABLE/slot_taken: that time is…". */
export function describeAgentError(e: AgentError): string {
  const status = e.status === undefined ? "" : ` ${e.status}`;
  if (e.refusal !== undefined) {
    return `${e.code}${status} ${e.refusal.code}/${e.refusal.reason}: ${e.refusal.message}`;
  }
  const field = e.field === undefined || e.field === "" ? "" : ` (${e.field})`;
  return `${e.code}${status}${field}: ${e.message}`;
}
