/**
 * The operator's view of a failed attempt, shared by both queues so their logs read alike:
 * one warn per failed attempt that will be retried, one error when a delivery is abandoned.
 */
import type { OutboundEvent } from "../../booking/api.js";
import type { Logger } from "../../protocol/logger.js";
import { logTarget } from "./deliver.js";
import type { DeliveryFailure } from "./deliver.js";
import type { RetryPolicy } from "./retry-policy.js";

export type AfterFailure = { readonly retry: true; readonly delayMs: number } | { readonly retry: false };

/** Decides and logs what follows failed attempt number `attempt` (1-based). */
export function afterFailedAttempt(
  logger: Logger,
  policy: RetryPolicy,
  outbound: OutboundEvent,
  outcome: DeliveryFailure,
  attempt: number,
): AfterFailure {
  const fields = {
    event_id: outbound.event["event_id"],
    type: outbound.event["type"],
    host_id: outbound.hostId,
    target: logTarget(outbound.callbackUrl),
    attempt,
    max_attempts: policy.maxAttempts,
    code: outcome.code,
    ...(outcome.status === undefined ? {} : { status: outcome.status }),
    reason: outcome.message,
  };
  if (!outcome.retryable || attempt >= policy.maxAttempts) {
    const why = outcome.retryable ? "attempts exhausted" : "not retryable";
    logger.error(`webhook delivery abandoned (${why})`, fields);
    return { retry: false };
  }
  const delayMs = policy.delayAfter(attempt);
  logger.warn("webhook delivery attempt failed; will retry", { ...fields, retry_in_ms: delayMs });
  return { retry: true, delayMs };
}
