/**
 * Google's error answers mapped onto the connector vocabulary (Calendar API "Handle API
 * errors"): the body is `{ error: { code, message, errors: [{ domain, reason, message }] } }`.
 *
 * - 401 authError: the token is expired or revoked → unauthorized (reconnect; not retried).
 * - 403 in the usageLimits domain or with a limit reason (rateLimitExceeded,
 *   userRateLimitExceeded, quotaExceeded) and 429 → rate_limited, with Retry-After when
 *   Google sends one (it usually does not; the guide asks for exponential backoff, which the
 *   caller's job does).
 * - other 403 (insufficientPermissions, forbidden…) → unauthorized: the grant no longer
 *   covers the calendar, and only the business can fix that.
 * - 404 → not_found; 412 → precondition_failed (If-Match); 410 is decided by the caller
 *   (a sync token: cursor_expired; a delete: already gone); 5xx → unavailable.
 */
import { retryAfterMs, type Answered } from "../http.js";
import type { ConnectorError, ConnectorErrorCode, EventWriteErrorCode } from "../port.js";

const RATE_REASONS = new Set([
  "rateLimitExceeded",
  "userRateLimitExceeded",
  "quotaExceeded",
  "dailyLimitExceeded",
]);

/** The `errors[]` entries' `field` strings ("reason" or "domain") of an error body. */
function detailsOf(data: unknown, field: "reason" | "domain"): string[] {
  const errors = (data as { error?: { errors?: unknown } } | null)?.error?.errors;
  if (!Array.isArray(errors)) return [];
  return errors.flatMap((e) => {
    const value = (e as Record<string, unknown> | null)?.[field];
    return typeof value === "string" ? [value] : [];
  });
}

/** The `reason` strings of an error body (empty when it has none). */
export const reasonsOf = (data: unknown): string[] => detailsOf(data, "reason");

/** The error of a read: a 412 cannot happen without If-Match and is a bad request there. */
export function googleError(answer: Answered, now: number): ConnectorError {
  const e = googleWriteError(answer, now);
  return e.code === "precondition_failed"
    ? { ...e, code: "invalid_request" }
    : (e as ConnectorError<ConnectorErrorCode>);
}

export function googleWriteError(answer: Answered, now: number): ConnectorError<EventWriteErrorCode> {
  const { status, data, headers } = answer.value;
  const reasons = reasonsOf(data);
  const what = `${answer.meta.call} answered ${status}${reasons.length > 0 ? ` (${reasons.join(", ")})` : ""}`;
  const usageLimit =
    reasons.some((r) => RATE_REASONS.has(r)) || detailsOf(data, "domain").includes("usageLimits");
  const rateLimited = status === 429 || (status === 403 && usageLimit);
  if (rateLimited) {
    const after = retryAfterMs(headers.get("retry-after"), now);
    return { code: "rate_limited", message: what, ...(after !== undefined && { retryAfterMs: after }) };
  }
  if (status === 401 || status === 403) return { code: "unauthorized", message: what };
  if (status === 404 || status === 410) return { code: "not_found", message: what };
  if (status === 412) return { code: "precondition_failed", message: what };
  if (status >= 500) {
    const after = retryAfterMs(headers.get("retry-after"), now);
    return { code: "unavailable", message: what, ...(after !== undefined && { retryAfterMs: after }) };
  }
  return { code: "invalid_request", message: what };
}
