/**
 * Graph's error answers mapped onto the connector vocabulary ("Microsoft Graph error
 * responses and resource types", "Microsoft Graph throttling guidance"): the body is
 * `{ error: { code, message, innerError: { "request-id", date } } }`.
 *
 * - 401 → unauthorized; 403 (ErrorAccessDenied: consent withdrawn, mailbox not reachable) →
 *   unauthorized too: only the business can fix it.
 * - 429 → rate_limited with Retry-After (Graph sends it when it throttles); 503 and 504 →
 *   unavailable, with Retry-After when sent; other 5xx → unavailable.
 * - 404 → not_found; 412 → precondition_failed (If-Match); 410 and the delta codes are decided
 *   by the sync (cursor_expired).
 */
import type { ConnectorError, ConnectorErrorCode, EventWriteErrorCode } from "../port.js";
import type { Answered } from "./http.js";

export function graphCodeOf(data: unknown): string | undefined {
  const code = (data as { error?: { code?: unknown } } | null)?.error?.code;
  return typeof code === "string" ? code : undefined;
}

/**
 * Retry-After as ms: delta-seconds or an HTTP date (RFC 9110 §10.2.3); fractional seconds, which
 * some Graph services send, are read too. Undefined if absent or unreadable.
 */
export function retryAfterMs(value: string | null, now: number): number | undefined {
  if (value === null) return undefined;
  const text = value.trim();
  if (/^\d+(?:\.\d+)?$/.test(text)) return Math.ceil(Number(text) * 1000);
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

export function graphWriteError(answer: Answered, now: number): ConnectorError<EventWriteErrorCode> {
  const { status } = answer;
  const code = graphCodeOf(answer.data);
  const what = `${answer.meta.call} answered ${status}${code !== undefined ? ` (${code})` : ""}`;
  const after = retryAfterMs(answer.headers.get("retry-after"), now);
  const retry = after !== undefined ? { retryAfterMs: after } : {};
  if (status === 429) return { code: "rate_limited", message: what, ...retry };
  if (status === 401 || status === 403) return { code: "unauthorized", message: what };
  if (status === 404 || status === 410) return { code: "not_found", message: what };
  if (status === 412) return { code: "precondition_failed", message: what };
  if (status >= 500) return { code: "unavailable", message: what, ...retry };
  return { code: "invalid_request", message: what };
}

/** The error of a read: a 412 cannot happen without If-Match and is a bad request there. */
export function graphError(answer: Answered, now: number): ConnectorError {
  const e = graphWriteError(answer, now);
  return e.code === "precondition_failed"
    ? { ...e, code: "invalid_request" }
    : (e as ConnectorError<ConnectorErrorCode>);
}
