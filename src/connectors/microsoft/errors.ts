/**
 * Graph's error answers mapped onto the connector vocabulary ("Microsoft Graph error
 * responses and resource types"): the body is
 * `{ error: { code, message, innerError: { "request-id", date } } }`.
 *
 * The transport statuses never reach here: connectors/http.ts maps 401 and 403 (ErrorAccessDenied:
 * consent withdrawn, mailbox not reachable; only the business can fix either) to unauthorized,
 * 429 to rate_limited and 5xx to unavailable, each with Retry-After when Graph sends it
 * ("Microsoft Graph throttling guidance"). What is left: 404 → not_found; 412 →
 * precondition_failed (If-Match); 410 and the delta codes are decided by the sync
 * (cursor_expired); anything else is a request Graph refused.
 */
import type { ConnectorError, ConnectorErrorCode, EventWriteErrorCode } from "../port.js";
import type { Answered } from "../http.js";

export function graphCodeOf(data: unknown): string | undefined {
  const code = (data as { error?: { code?: unknown } } | null)?.error?.code;
  return typeof code === "string" ? code : undefined;
}

/** `_now` is kept for callers: Retry-After is read by connectors/http.ts now. */
export function graphWriteError(answer: Answered, _now?: number): ConnectorError<EventWriteErrorCode> {
  const { status, data } = answer.value;
  const code = graphCodeOf(data);
  const what = `${answer.meta.call} answered ${status}${code !== undefined ? ` (${code})` : ""}`;
  if (status === 404 || status === 410) return { code: "not_found", message: what };
  if (status === 412) return { code: "precondition_failed", message: what };
  return { code: "invalid_request", message: what };
}

/** The error of a read: a 412 cannot happen without If-Match and is a bad request there. */
export function graphError(answer: Answered, _now?: number): ConnectorError {
  const e = graphWriteError(answer);
  return e.code === "precondition_failed"
    ? { ...e, code: "invalid_request" }
    : (e as ConnectorError<ConnectorErrorCode>);
}
