/**
 * UpstreamMeta of one response (OSBP "Platform Metadata and Versioning"): the call line with
 * its query dropped and contact-bearing path segments redacted, and the response headers an
 * operator needs. Response headers only: request headers (where credentials live) are never read.
 */
import type { UpstreamMeta } from "../ports/result.js";

const REDACTED = "{redacted}";

/** A connector's own rule for a decoded path segment that carries contact data. */
export type SegmentRedactor = (segment: string) => boolean;

/** What a redacted segment was: an e-mail address, a phone number, or the connector's own kind. */
type RedactedKind = "email" | "phone" | "other";

/**
 * How a redacted segment is written. Connectors keep the spelling their operators already read
 * (the calendar connectors: OSBP's audit markers "[redacted:email]"; CalDAV: "~").
 */
export type RedactionMarker = (kind: RedactedKind) => string;

const defaultMarker: RedactionMarker = () => REDACTED;

const EMAIL = /@/;
// ISO dates and times are digits and separators too; they are not phone numbers.
const ISO_DATE = /^\d{4}-\d{2}-\d{2}/;
const PHONE_CHARS = /^\+?[\d\s().-]+$/;

/**
 * Contact shapes a path may carry: an email address, or a phone number (7 to 15 digits, either
 * with a leading "+" or written with separators). A bare run of digits stays: platforms use
 * numeric ids, and a connector whose platform puts bare phone numbers in paths adds a redactor.
 */
export function isContactSegment(segment: string): boolean {
  return contactKind(segment) !== undefined;
}

function contactKind(segment: string): "email" | "phone" | undefined {
  if (EMAIL.test(segment)) return "email";
  if (ISO_DATE.test(segment) || !PHONE_CHARS.test(segment)) return undefined;
  const digits = segment.replace(/\D/g, "").length;
  if (digits < 7 || digits > 15) return undefined;
  return segment.startsWith("+") || /[\s().-]/.test(segment) ? "phone" : undefined;
}

function decode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** "/v1/customers/a%40b.c?x=1" → "/v1/customers/{redacted}". */
export function redactPath(
  pathWithQuery: string,
  extra?: SegmentRedactor,
  marker: RedactionMarker = defaultMarker,
): string {
  const cut = pathWithQuery.search(/[?#]/);
  const path = cut === -1 ? pathWithQuery : pathWithQuery.slice(0, cut);
  return path
    .split("/")
    .map((segment) => {
      if (segment === "") return segment;
      const decoded = decode(segment);
      const kind = contactKind(decoded) ?? ((extra?.(decoded) ?? false) ? "other" : undefined);
      return kind === undefined ? segment : marker(kind);
    })
    .join("/");
}

export function callLine(
  method: string,
  pathWithQuery: string,
  extra?: SegmentRedactor,
  marker?: RedactionMarker,
): string {
  return `${method.toUpperCase()} ${redactPath(pathWithQuery, extra, marker)}`;
}

/** Header names (lowercase) that echo the API version a platform answered with. */
const DEFAULT_VERSION_ECHOES = ["api-version", "x-api-version"];

const isRateLimitHeader = (name: string): boolean =>
  name === "retry-after" ||
  name === "ratelimit" ||
  name === "ratelimit-policy" ||
  name.startsWith("x-ratelimit-");

/**
 * Builds the meta from a response's status and headers. `versionEchoes` are the header names
 * the platform echoes its version in (its pin header first); the first present wins.
 * request_id: the first header, in the Headers iteration order (sorted by name: fetch keeps no
 * wire order), whose name contains "request-id", the platform's own before an echo of the
 * client's: Graph answers both `client-request-id` (the id the caller sent, or one made for it)
 * and `request-id` (its own, the one its support asks for), and the first sorts first.
 */
export function captureUpstreamMeta(
  call: string,
  status: number,
  headers: Headers | undefined,
  versionEchoes: readonly string[] = [],
): UpstreamMeta {
  if (headers === undefined) return { call, status };
  let requestId: string | undefined;
  let clientRequestId: string | undefined;
  const ratelimit: Record<string, string> = {};
  for (const [name, value] of headers) {
    const lower = name.toLowerCase();
    if (lower.includes("request-id")) {
      if (lower.startsWith("client-")) clientRequestId ??= value;
      else requestId ??= value;
    }
    if (isRateLimitHeader(lower)) ratelimit[lower] = value;
  }
  requestId ??= clientRequestId;
  let apiVersion: string | undefined;
  for (const name of [...versionEchoes.map((n) => n.toLowerCase()), ...DEFAULT_VERSION_ECHOES]) {
    const value = headers.get(name);
    if (value !== null) {
      apiVersion = value;
      break;
    }
  }
  const server = headers.get("server");
  const deprecation = headers.get("deprecation");
  const sunset = headers.get("sunset");
  return {
    call,
    status,
    ...(server !== null ? { server } : {}),
    ...(requestId !== undefined ? { request_id: requestId } : {}),
    ...(apiVersion !== undefined ? { api_version: apiVersion } : {}),
    ...(deprecation !== null ? { deprecation } : {}),
    ...(sunset !== null ? { sunset } : {}),
    ...(Object.keys(ratelimit).length > 0 ? { ratelimit } : {}),
  };
}

/**
 * Retry-After (RFC 9110 §10.2.3) as milliseconds from `nowMs`: delay-seconds or an HTTP-date.
 * Fractional seconds, which the RFC does not allow but some Microsoft Graph services send
 * ("2.5"), are read too and rounded up. Undefined when absent or unreadable; a past date is 0.
 */
export function retryAfterMs(value: string | null | undefined, nowMs: number): number | undefined {
  if (value === null || value === undefined) return undefined;
  const trimmed = value.trim();
  if (/^\d+(?:\.\d+)?$/.test(trimmed)) return Math.ceil(Number(trimmed) * 1000);
  // Every HTTP-date form names its month (IMF-fixdate, RFC 850, asctime); Date.parse alone
  // would read a stray "1." as a day in 2001.
  if (!/[A-Za-z]{3}/.test(trimmed)) return undefined;
  const at = Date.parse(trimmed);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - nowMs);
}
