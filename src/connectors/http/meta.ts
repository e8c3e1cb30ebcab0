/**
 * UpstreamMeta of one response (OSBP "Platform Metadata and Versioning"): the call line with
 * its query dropped and contact-bearing path segments redacted, and the response headers an
 * operator needs. Response headers only: request headers (where credentials live) are never read.
 */
import type { UpstreamMeta } from "../ports/result.js";

export const REDACTED = "{redacted}";

/** A connector's own rule for a decoded path segment that carries contact data. */
export type SegmentRedactor = (segment: string) => boolean;

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
  if (EMAIL.test(segment)) return true;
  if (ISO_DATE.test(segment) || !PHONE_CHARS.test(segment)) return false;
  const digits = segment.replace(/\D/g, "").length;
  if (digits < 7 || digits > 15) return false;
  return segment.startsWith("+") || /[\s().-]/.test(segment);
}

function decode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** "/v1/customers/a%40b.c?x=1" → "/v1/customers/{redacted}". */
export function redactPath(pathWithQuery: string, extra?: SegmentRedactor): string {
  const cut = pathWithQuery.search(/[?#]/);
  const path = cut === -1 ? pathWithQuery : pathWithQuery.slice(0, cut);
  return path
    .split("/")
    .map((segment) => {
      if (segment === "") return segment;
      const decoded = decode(segment);
      return isContactSegment(decoded) || (extra?.(decoded) ?? false) ? REDACTED : segment;
    })
    .join("/");
}

export function callLine(method: string, pathWithQuery: string, extra?: SegmentRedactor): string {
  return `${method.toUpperCase()} ${redactPath(pathWithQuery, extra)}`;
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
 * wire order), whose name contains "request-id".
 */
export function captureUpstreamMeta(
  call: string,
  status: number,
  headers: Headers | undefined,
  versionEchoes: readonly string[] = [],
): UpstreamMeta {
  if (headers === undefined) return { call, status };
  let requestId: string | undefined;
  const ratelimit: Record<string, string> = {};
  for (const [name, value] of headers) {
    const lower = name.toLowerCase();
    if (requestId === undefined && lower.includes("request-id")) requestId = value;
    if (isRateLimitHeader(lower)) ratelimit[lower] = value;
  }
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
 * Undefined when absent or unreadable; a date in the past is 0.
 */
export function retryAfterMs(value: string | null | undefined, nowMs: number): number | undefined {
  if (value === null || value === undefined) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const at = Date.parse(trimmed);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - nowMs);
}
