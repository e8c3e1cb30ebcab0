/** How the upstream helper words and maps what went wrong: never a URL, header, body or secret. */
import type { ConnectorError } from "../ports/result.js";
import { retryAfterMs } from "./meta.js";

/** An answer the gateway could not read within its time and memory bounds (its parse would hold the loop). */
export function tooCostly(what: string): ConnectorError {
  return {
    code: "unavailable",
    reason: "upstream_too_costly",
    message: `${what} could not be read within the gateway's time and memory bounds`,
  };
}

export const isAbort = (error: unknown): boolean =>
  error instanceof Error && (error.name === "AbortError" || error.name === "TimeoutError");

/** A transport failure's message: the call line and a code, never the URL, headers or body. */
export function networkMessage(call: string, error: unknown): string {
  const cause = error instanceof Error ? (error.cause as { code?: unknown } | undefined) : undefined;
  const code = typeof cause?.code === "string" ? ` (${cause.code})` : "";
  return `upstream unreachable: ${call}${code}`;
}

/**
 * A provider's failure, without its message (a token endpoint's answer may quote a secret):
 * unauthorized only when it says the grant is unusable (`code: "unauthorized"`). A provider
 * whose words carry no secret and tell the operator the fix (the gateway's token file reader:
 * the path it could not read) says so with `operatorMessage`, which is kept.
 */
export function credentialError(error: unknown, call: string): ConnectorError {
  const e = error as { code?: unknown; operatorMessage?: unknown } | null;
  const revoked = e?.code === "unauthorized";
  const why =
    typeof e?.operatorMessage === "string"
      ? `: ${e.operatorMessage}`
      : revoked
        ? " (revoked: reconnect)"
        : "";
  return {
    code: revoked ? "unauthorized" : "unavailable",
    message: `the credential provider failed${why}: ${call}`,
  };
}

export function mergeSignals(timeout: AbortSignal, other: AbortSignal | null | undefined): AbortSignal {
  return other ? AbortSignal.any([timeout, other]) : timeout;
}

/**
 * The error a status maps to by transport rules, or undefined when it is the connector's to
 * read: 429 → rate_limited, the unauthorized statuses → unauthorized, 5xx → unavailable, each
 * with Retry-After (RFC 9110 §10.2.3: a 503 may say when to come back; Graph and Google do).
 */
export function statusError(
  status: number,
  headers: Headers | undefined,
  call: string,
  unauthorized: ReadonlySet<number>,
  now: number,
): ConnectorError | undefined {
  const after = retryAfterMs(headers?.get("retry-after"), now);
  const retry = after !== undefined ? { retryAfterMs: after } : {};
  if (status === 429) return { code: "rate_limited", message: `upstream rate limited: ${call}`, ...retry };
  if (unauthorized.has(status)) {
    return { code: "unauthorized", message: `upstream refused the credential (HTTP ${status}): ${call}` };
  }
  if (status >= 500)
    return { code: "unavailable", message: `upstream failed (HTTP ${status}): ${call}`, ...retry };
  return undefined;
}
