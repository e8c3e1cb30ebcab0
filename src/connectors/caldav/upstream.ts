/**
 * The CalDAV connector's one door to the network: every request (PUT, GET, DELETE, PROPFIND,
 * REPORT, and tsdav's discovery walk) goes through `send`, which runs it through the shared
 * upstream client's capturing fetch (connectors/http.ts). That client adds the Basic
 * credentials (and only it holds them), the User-Agent (CalDAV has no version to pin: the RFCs
 * are the contract, named in the User-Agent), bounds the call and the reading of its answer with
 * the timeout, refuses any URL on another origin, captures UpstreamMeta and announces
 * Deprecation/Sunset. `send` reads the whole answer, at most `maxBytes` of it (the CalDAV
 * cap of http/limits.ts unless the request or the connector sets less; past it the answer is
 * `unavailable` with reason `upstream_too_large`, http/read-body.ts): CalDAV answers are XML and
 * iCalendar, and every status is the connector's to read (a 403 naming a precondition is not a
 * refused credential), so the client's JSON `request` is not used.
 *
 * The call line is the path without the query, with segments that carry contact data (an e-mail
 * address, a phone number, the account's user name, which CalDAV servers put in principal and
 * calendar paths) written "~"; no error message quotes a URL with user info, a request header or
 * a response body. Redirects are answered as they are: following one could carry the
 * credentials elsewhere.
 */
import type { Clock } from "../../protocol/clock.js";
import type { Logger } from "../../protocol/logger.js";
import {
  callLine,
  createUpstreamClient,
  isTooLarge,
  tooLargeError,
  retryAfterMs as retryAfter,
  type UpstreamClient,
  type UpstreamNotice,
} from "../http.js";
import { upstreamLimits } from "../http/limits.js";
import { readBodyCapped } from "../http/read-body.js";
import type { ConnectorError, PlatformIdentity, UpstreamMeta } from "../port.js";
import type { Result } from "../../protocol/result.js";

/** The protocols pinned: there is no API version to send, the RFCs are the contract. */
export const CALDAV_PLATFORM: PlatformIdentity = { vendor: "caldav", api_version: "RFC4791+RFC6578" };

export interface TransportOptions {
  readonly server: URL;
  readonly fetch?: typeof globalThis.fetch;
  readonly timeoutMs: number;
  /** Bytes an answer may have (default: http/limits.ts caldavBytes). */
  readonly maxResponseBytes?: number;
  readonly clock: Clock;
  readonly username?: string;
  readonly password?: string;
  readonly logger?: Pick<Logger, "warn">;
  readonly onNotice?: (notice: UpstreamNotice) => void;
}

export interface HttpAnswer {
  readonly status: number;
  readonly headers: Headers;
  /**
   * The body as it arrived, its own ArrayBuffer: a Multi-Status is handed to the parse worker
   * as bytes (transferred, not copied) and decoded there, never on the event loop.
   */
  readonly bytes: Uint8Array;
  /** The body as UTF-8 text, decoded on first use (error bodies, small answers). */
  readonly body: string;
}

/** An error body's opening: where a precondition is named; the rest is not worth decoding. */
const ERROR_TEXT_BYTES = 64 * 1024;

/** The first ERROR_TEXT_BYTES of an answer as text (a refusal's DAV:error, RFC 4918 §16). */
export const errorText = (answer: HttpAnswer): string =>
  answer.bytes.byteLength <= ERROR_TEXT_BYTES
    ? answer.body
    : new TextDecoder("utf-8").decode(answer.bytes.subarray(0, ERROR_TEXT_BYTES));

/** An answer whose text is decoded only when asked for (a BOM dropped, as Response.text() does). */
function httpAnswer(status: number, headers: Headers, bytes: Uint8Array): HttpAnswer {
  let text: string | undefined;
  return {
    status,
    headers,
    bytes,
    get body(): string {
      text ??= new TextDecoder("utf-8").decode(bytes);
      return text;
    },
  };
}

/** An answer arrived (any status), or none did (timeout, refused connection). */
type Exchange = Result<HttpAnswer, ConnectorError> & { readonly meta: UpstreamMeta };

interface OutgoingRequest {
  readonly method: string;
  readonly url: URL;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
  /** Bytes this answer may have, when less than the connector's cap (discovery's answers). */
  readonly maxBytes?: number;
}

export type Send = (request: OutgoingRequest) => Promise<Exchange>;

const MARKER = (): string => "~";

export function createSend(opts: TransportOptions): Send {
  const { username } = opts;
  const authorization =
    username === undefined
      ? undefined
      : `Basic ${Buffer.from(`${username}:${opts.password ?? ""}`, "utf8").toString("base64")}`;
  const redact = (segment: string): boolean => segment === username;
  const cap = opts.maxResponseBytes ?? upstreamLimits().caldavBytes;
  const upstream: UpstreamClient = createUpstreamClient({
    vendor: CALDAV_PLATFORM.vendor,
    apiVersion: CALDAV_PLATFORM.api_version,
    baseUrl: opts.server.origin,
    pin: { unversioned: true },
    ...(authorization === undefined ? {} : { credentials: () => Promise.resolve({ authorization }) }),
    timeoutMs: opts.timeoutMs,
    maxResponseBytes: cap,
    clock: opts.clock,
    redact,
    marker: MARKER,
    // One warning per method and collection, not one per calendar object resource.
    endpointOf: (call) => call.replace(/\/[^/]+\.ics$/, "/*.ics"),
    ...(opts.fetch === undefined ? {} : { fetch: opts.fetch }),
    ...(opts.logger === undefined ? {} : { logger: opts.logger }),
    ...(opts.onNotice === undefined ? {} : { onNotice: opts.onNotice }),
  });

  return async ({ method, url, headers, body, maxBytes }) => {
    const limit = Math.min(cap, maxBytes ?? cap);
    const captured = await upstream.withCapture(async (): Promise<HttpAnswer> => {
      const response = await upstream.fetch(url, {
        method,
        headers: { ...headers },
        ...(body === undefined ? {} : { body }),
        redirect: "manual",
      });
      const bytes = await readBodyCapped(response, { maxBytes: limit });
      return httpAnswer(response.status, response.headers, bytes);
    });
    const last = captured.calls.at(-1);
    const call = last?.meta.call ?? callLine(method, url.pathname, redact, MARKER);
    if (captured.ok && last !== undefined) return { ok: true, value: captured.value, meta: last.meta };
    if (last?.failure === "too_large" || (!captured.ok && isTooLarge(captured.error)))
      return { ok: false, meta: { call, status: 0 }, error: tooLargeError(call, limit) };
    const meta: UpstreamMeta = { call, status: 0 };
    // No answer, or one whose body did not arrive in time or at all.
    const timedOut =
      last?.failure === "timeout" ||
      (captured.ok === false &&
        captured.error instanceof Error &&
        (captured.error.name === "TimeoutError" || captured.error.name === "AbortError"));
    if (last?.failure === "refused")
      return { ok: false, meta, error: upstream.errorOf(last) ?? { code: "invalid_request", message: call } };
    if (timedOut)
      return {
        ok: false,
        meta,
        error: { code: "timeout", message: `the CalDAV server did not answer ${call} in time` },
      };
    return {
      ok: false,
      meta,
      error: { code: "unavailable", message: `the CalDAV server could not be reached for ${call}` },
    };
  };
}

/**
 * The port's error for an HTTP status the caller has no special meaning for (HTTP semantics,
 * RFC 9110 §15). `what` names the operation for the message.
 */
export function statusError(answer: HttpAnswer, what: string, clock: Clock): ConnectorError {
  const { status } = answer;
  const precondition = preconditionOf(errorText(answer));
  // RFC 4791 §1.3 / RFC 4918 §16: a 403 or 409 naming a precondition refused the request itself
  // (no-uid-conflict, valid-calendar-data, max-resource-size…), not the credentials.
  if ((status === 403 || status === 409) && precondition !== undefined)
    return {
      code: "invalid_request",
      message: `the CalDAV server refused ${what}: ${precondition} (${status})`,
    };
  if (status === 401 || status === 403)
    return {
      code: "unauthorized",
      message: `the CalDAV server refused the credentials (${status}) for ${what}`,
    };
  if (status === 404 || status === 410)
    return { code: "not_found", message: `${what}: not found (${status})` };
  if (status === 429) {
    const retryAfterMs = retryAfter(answer.headers.get("retry-after"), clock.now());
    return {
      code: "rate_limited",
      message: `the CalDAV server is rate limiting (${what})`,
      ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    };
  }
  if (status >= 500 || (status >= 300 && status < 400)) {
    const retryAfterMs = retryAfter(answer.headers.get("retry-after"), clock.now());
    const why = status < 400 ? "redirected the request (set the calendar's final URL)" : "failed";
    return {
      code: "unavailable",
      message: `the CalDAV server ${why} (${status}) for ${what}`,
      ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    };
  }
  return { code: "invalid_request", message: `the CalDAV server refused ${what} (${status})` };
}

/**
 * The precondition or postcondition a WebDAV error body names (RFC 4918 §16: the first element
 * inside DAV:error, e.g. "no-uid-conflict"), if the body is one.
 */
export function preconditionOf(body: string): string | undefined {
  const match = /<(?:[\w.-]+:)?error\b[^>]*>\s*<(?:[\w.-]+:)?([\w-]+)/.exec(body);
  return match?.[1];
}
