/**
 * The CalDAV connector's one door to the network: every request (PUT, GET, DELETE, PROPFIND,
 * REPORT) goes through `send`, which adds the credentials, bounds the call with an AbortSignal
 * timeout, reads the whole answer and captures its UpstreamMeta. Kept in one small module so
 * the integrator can route it through the shared connectors/http.ts later without touching the
 * CalDAV logic.
 *
 * Credentials live only in the Authorization header of the request: the call line is the path
 * without the query, with segments that carry contact data (an e-mail address, the account's
 * user name, which CalDAV servers put in principal and calendar paths) redacted; no error
 * message quotes a URL with user info, a request header or a response body.
 */
import type { ConnectorError, UpstreamMeta } from "../port.js";
import { captureUpstreamMeta } from "../http/meta.js";

export interface TransportOptions {
  readonly fetch: typeof globalThis.fetch;
  readonly timeoutMs: number;
  readonly clock: { now(): number };
  readonly username?: string;
  readonly password?: string;
}

export interface HttpAnswer {
  readonly status: number;
  readonly headers: Headers;
  readonly body: string;
}

/** An answer arrived (any status), or none did (timeout, refused connection). */
export type Exchange =
  | { readonly ok: true; readonly answer: HttpAnswer; readonly meta: UpstreamMeta }
  | { readonly ok: false; readonly error: ConnectorError; readonly meta: UpstreamMeta };

export interface OutgoingRequest {
  readonly method: string;
  readonly url: URL;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
}

export type Send = (request: OutgoingRequest) => Promise<Exchange>;

export function createSend(opts: TransportOptions): Send {
  const authorization =
    opts.username === undefined
      ? undefined
      : `Basic ${Buffer.from(`${opts.username}:${opts.password ?? ""}`, "utf8").toString("base64")}`;
  const redacted = new Set(opts.username === undefined ? [] : [opts.username]);

  return async ({ method, url, headers, body }) => {
    const call = callLine(method, url, redacted);
    const signal = AbortSignal.timeout(opts.timeoutMs);
    try {
      const response = await opts.fetch(url, {
        method,
        headers: { ...headers, ...(authorization === undefined ? {} : { authorization }) },
        ...(body === undefined ? {} : { body }),
        signal,
        // A redirect is answered as it is: following one could carry the credentials elsewhere.
        redirect: "manual",
      });
      const text = await response.text();
      const meta = metaOf(call, response.status, response.headers);
      return { ok: true, answer: { status: response.status, headers: response.headers, body: text }, meta };
    } catch (error) {
      const meta: UpstreamMeta = { call, status: 0 };
      if (signal.aborted || (error instanceof Error && error.name === "TimeoutError"))
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
    }
  };
}

/** "METHOD /path": no query; e-mail-like segments and the user name become "~". */
export function callLine(method: string, url: URL, redacted: ReadonlySet<string>): string {
  const segments = url.pathname.split("/").map((segment) => {
    let decoded = segment;
    try {
      decoded = decodeURIComponent(segment);
    } catch {
      // A malformed escape is kept as it is: it cannot be contact data we could recognise anyway.
    }
    return decoded.includes("@") || redacted.has(decoded) ? "~" : segment;
  });
  return `${method} ${segments.join("/")}`;
}

function metaOf(call: string, status: number, headers: Headers): UpstreamMeta {
  return captureUpstreamMeta(call, status, headers);
}

/**
 * The port's error for an HTTP status the caller has no special meaning for (HTTP semantics,
 * RFC 9110 §15). `what` names the operation for the message.
 */
export function statusError(answer: HttpAnswer, what: string, clock: { now(): number }): ConnectorError {
  const { status } = answer;
  const precondition = preconditionOf(answer.body);
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
    const retryAfterMs = retryAfterOf(answer.headers.get("retry-after"), clock.now());
    return {
      code: "rate_limited",
      message: `the CalDAV server is rate limiting (${what})`,
      ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    };
  }
  if (status >= 500 || (status >= 300 && status < 400)) {
    const retryAfterMs = retryAfterOf(answer.headers.get("retry-after"), clock.now());
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

/** Retry-After as delay-seconds or an HTTP date (RFC 9110 §10.2.3), in ms from now. */
export function retryAfterOf(value: string | null, now: number): number | undefined {
  if (value === null) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}
