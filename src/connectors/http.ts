/**
 * The single upstream request helper (docs/ARCHITECTURE.md, Upstream requests; OSBP "Platform Metadata and Versioning").
 * Every connector's HTTP goes through `createUpstreamClient(...).request`, or, for an SDK that
 * takes a fetch function, through the same client's `fetch` wrapper read with `withCapture`.
 * On every call it:
 * - pins the platform's API version (a header, set last so nothing overrides it, or a path prefix);
 *   sends nothing outside the client's base URL and pin prefix, so a link a platform hands back
 *   (a delta link, a redirect, a discovered href) never carries the credentials elsewhere;
 * - sends `User-Agent: booking-gateway/<version> <vendor>/<api_version> node/<major>`;
 * - bounds the call with a timeout (AbortSignal; 10 s by default), body read included, and
 *   reads at most `maxResponseBytes` of the answer while it streams in (http/read-body.ts; the
 *   JSON default in http/limits.ts): past it the call is `unavailable` with reason
 *   `upstream_too_large`, for the SDKs' fetch too; and measures a JSON answer before it is
 *   parsed (http/json-cost.ts): one whose parse would hold the event loop past the token budget
 *   is `unavailable` with reason `upstream_too_costly`, unparsed, for the SDKs' fetch too;
 * - attaches credentials from the provider here and nowhere else: they never reach metadata,
 *   logs or errors (meta is built from response headers only). A provider that throws is
 *   unauthorized when its error says `code: "unauthorized"` (a revoked grant), else unavailable,
 *   and nothing is sent; its message is not passed on (it may quote what it was refreshing);
 * - spaces calls to the platform's published rate (http/spacer.ts), and sends nothing to an
 *   account that answered 429 (or 503 with Retry-After) before the time it named: the call is
 *   answered rate_limited with the remaining wait (http/pacing.ts);
 * - captures the response's UpstreamMeta and announces Deprecation/Sunset (http/notices.ts);
 * - runs each request in a client span of its own (src/protocol/tracing.ts), the child of the
 *   port call's, carrying the call line, the status and the upstream's request id (the first
 *   response header naming "request-id": Square's and the platforms', Graph's `request-id`;
 *   Google Calendar sends none);
 * - maps transport outcomes: network error → unavailable, abort → timeout, 429 → rate_limited
 *   (retryAfterMs from Retry-After), 401/403 → unauthorized (configurable), 5xx → unavailable
 *   (with retryAfterMs when a 503 or other 5xx says when to come back), unreadable JSON →
 *   unavailable. Other statuses come back as values for the connector to map,
 *   because only it knows the platform's error bodies.
 */
import { systemClock } from "../protocol/clock.js";
import { AsyncLocalStorage } from "node:async_hooks";
import type { ConnectorError, ConnectorResult, UpstreamMeta } from "./ports/result.js";
import {
  credentialError,
  isAbort,
  mergeSignals,
  networkMessage,
  statusError,
  tooCostly,
} from "./http/failures.js";
import { jsonCost } from "./http/json-cost.js";
import { callLine, captureUpstreamMeta, retryAfterMs } from "./http/meta.js";
import { announce, consoleLogger } from "./http/notices.js";
import { JSON_DEPTH, JSON_KEYS, upstreamLimits } from "./http/limits.js";
import { isTooLarge, readBodyCapped, readTextCapped } from "./http/read-body.js";
import { createSpacer, realSleep } from "./http/spacer.js";
import { DEFAULT_PACING_MS } from "./http/pacing.js";
import type {
  CapturedCall,
  Captured,
  UpstreamClient,
  UpstreamClientOptions,
  UpstreamRequest,
  UpstreamResponse,
} from "./http/types.js";
import { userAgentFor } from "./http/user-agent.js";
import { failSpan, inSpan, type Span } from "../protocol/tracing.js";

export { callLine, retryAfterMs } from "./http/meta.js";
export { resetNoticeLog } from "./http/notices.js";
export { MemoryPacingGate } from "./http/pacing.js";
export type { UpstreamPacing } from "./http/pacing.js";
export type { UpstreamNotice } from "./http/notices.js";
export type {
  Answered,
  CallOutcome,
  UpstreamClient,
  UpstreamClientOptions,
  UpstreamResponse,
} from "./http/types.js";
export { isTooLarge } from "./http/read-body.js";

/** The error of an answer over the byte cap (the reason names the bound, the message the call). */
export function tooLargeError(call: string, limit: number): ConnectorError {
  return {
    code: "unavailable",
    reason: "upstream_too_large",
    message: `upstream answered more than ${limit} bytes: ${call}`,
  };
}

/** The error of a JSON answer over the token budget: refused before its parse held the loop. */
function tooCostlyError(call: string): ConnectorError {
  return tooCostly(`the answer to ${call}`);
}

const DEFAULT_TIMEOUT_MS = 10_000;

/** Statuses whose Response may not carry a body (the Fetch standard's null body status). */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

/** The answer as read, for an SDK: the same status, headers, URL and redirect flag. */
function answerOf(response: Response, bytes: Uint8Array): Response {
  const answer = new Response(NULL_BODY.has(response.status) ? null : bytes, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
  // Response's constructor cannot set these; SDKs read them (redirects, the final URL).
  Object.defineProperty(answer, "url", { value: response.url });
  Object.defineProperty(answer, "redirected", { value: response.redirected });
  return answer;
}

/** Whether a body is to be measured as JSON: by its media type, or by its first character. */
function looksJson(contentType: string | null, text: string): boolean {
  if (contentType !== null && /\bjson\b/i.test(contentType)) return true;
  const first = text.trimStart().charCodeAt(0);
  return first === 0x7b || first === 0x5b;
}

export function createUpstreamClient(options: UpstreamClientOptions): UpstreamClient {
  const doFetch = options.fetch ?? globalThis.fetch;
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? consoleLogger;
  const timeoutDefault = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxBytes = (): number => options.maxResponseBytes ?? upstreamLimits().jsonBytes;
  const budget = () => ({
    maxTokens:
      options.maxJsonTokens ??
      Math.max(1_000, Math.floor(upstreamLimits().jsonTokens / (options.parseCostFactor ?? 1))),
    maxDepth: JSON_DEPTH,
    maxKeys: JSON_KEYS,
  });
  const unauthorized = new Set(options.unauthorizedStatuses ?? [401, 403]);
  const spacer = createSpacer(options.maxPerSecond ?? 0, clock, options.sleep ?? realSleep);
  const userAgent = userAgentFor(options.vendor, options.apiVersion, options.gatewayVersion);
  const pin = options.pin;
  const prefix = "pathPrefix" in pin ? pin.pathPrefix.replace(/\/$/, "") : "";
  const echoes = [...("header" in pin ? [pin.header] : []), ...(options.versionEchoHeaders ?? [])];
  const base = options.baseUrl.replace(/\/$/, "");
  const root = new URL(`${base}${prefix}/`);
  const captures = new AsyncLocalStorage<{ calls: CapturedCall[]; credentialError?: ConnectorError }>();
  const lineOf = (method: string, path: string): string =>
    callLine(method, path, options.redact, options.marker);
  const pacing = options.pacing;
  const pacingKey = pacing === undefined ? "" : `${options.vendor}:${pacing.account}`;

  /** How long this account must still wait before anything is sent (0: it may send now). */
  async function mustWait(): Promise<number> {
    if (pacing === undefined) return 0;
    const now = clock.now();
    const until = await pacing.gate.notBefore(pacingKey, now);
    return until === undefined ? 0 : Math.max(0, until - now);
  }

  /** A 429, or a 5xx that said when to come back, holds every later call back until then. */
  async function heed(status: number, headers: Headers): Promise<void> {
    if (pacing === undefined) return;
    const retry = retryAfterMs(headers.get("retry-after"), clock.now());
    if (status !== 429 && !(status >= 500 && retry !== undefined)) return;
    const now = clock.now();
    await pacing.gate.defer(pacingKey, now + (retry ?? DEFAULT_PACING_MS), now);
  }

  const heldBack = (call: string, waitMs: number): ConnectorError => ({
    code: "rate_limited",
    message: `${options.vendor} asked the gateway to wait; nothing sent: ${call}`,
    retryAfterMs: waitMs,
  });

  /** Under the base URL and pin prefix: where the credentials may go. */
  const within = (url: URL): boolean => url.origin === root.origin && url.pathname.startsWith(root.pathname);

  /** Our headers over the caller's: credentials, then UA, then the pin last of all. */
  async function finalHeaders(
    init: ConstructorParameters<typeof Headers>[0],
    anonymous = false,
  ): Promise<Headers> {
    const headers = new Headers(init);
    const secret = options.credentials && !anonymous ? await options.credentials() : {};
    for (const [name, value] of Object.entries(secret)) headers.set(name, value);
    headers.set("user-agent", userAgent);
    if ("header" in pin) headers.set(pin.header, pin.value);
    return headers;
  }

  const transportError = (status: number, headers: Headers | undefined, call: string) =>
    statusError(status, headers, call, unauthorized, clock.now());

  function observe(meta: UpstreamMeta): void {
    announce(options.vendor, meta, logger, options.onNotice, options.endpointOf);
  }

  /** The URL and call line of a request; a link outside the base is an error (nothing sent). */
  function target(req: UpstreamRequest): { url: string; call: string } | ConnectorError {
    if ("link" in req) {
      let url: URL;
      try {
        url = new URL(req.link);
      } catch {
        return { code: "invalid_request", message: `not a URL: ${req.method.toUpperCase()} link` };
      }
      const call = lineOf(req.method, url.pathname);
      if (!within(url))
        return { code: "invalid_request", message: `refused a link outside the API: ${call}` };
      return { url: req.link, call };
    }
    if (/[?#]/.test(req.path)) throw new Error("UpstreamRequest.path carries no query: use query");
    const path = `${prefix}${req.path.startsWith("/") ? "" : "/"}${req.path}`;
    const search = new URLSearchParams();
    for (const [k, v] of Object.entries(req.query ?? {})) if (v !== undefined) search.set(k, String(v));
    const url = `${base}${path}${search.size > 0 ? `?${search.toString()}` : ""}`;
    return { url, call: lineOf(req.method, path) };
  }

  /** One request in its span: what it sent and what came back (request id included). */
  function request(req: UpstreamRequest): Promise<ConnectorResult<UpstreamResponse>> {
    const method = req.method.toUpperCase();
    return inSpan(`${options.vendor} ${method}`, spanOptions(method), async (span) => {
      const result = await send(req);
      describeCall(span, result.upstream, result.ok ? undefined : result.error.code);
      return result;
    });
  }

  async function send(req: UpstreamRequest): Promise<ConnectorResult<UpstreamResponse>> {
    const aimed = target(req);
    if ("code" in aimed) return { ok: false, error: aimed };
    const { url, call } = aimed;
    const wait = await mustWait();
    if (wait > 0) return { ok: false, error: heldBack(call, wait) };

    const init: Record<string, string> = { accept: "application/json", ...req.headers };
    if (req.body !== undefined) init["content-type"] = "application/json";
    let headers: Headers;
    try {
      headers = await finalHeaders(init, req.anonymous);
    } catch (error) {
      return { ok: false, error: credentialError(error, call) };
    }

    await spacer.wait();
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), req.timeoutMs ?? timeoutDefault);
    let response: Response;
    let text: string;
    try {
      response = await doFetch(url, {
        method: req.method.toUpperCase(),
        headers,
        ...(req.body !== undefined ? { body: JSON.stringify(req.body) } : {}),
        signal: controller.signal,
      });
      text = await readTextCapped(response, { maxBytes: maxBytes(), signal: controller.signal });
    } catch (error) {
      const meta: UpstreamMeta = { call, status: 0 };
      if (isTooLarge(error)) return { ok: false, error: tooLargeError(call, maxBytes()), upstream: meta };
      if (isAbort(error) || controller.signal.aborted) {
        return {
          ok: false,
          error: { code: "timeout", message: `upstream timed out: ${call}` },
          upstream: meta,
        };
      }
      return {
        ok: false,
        error: { code: "unavailable", message: networkMessage(call, error) },
        upstream: meta,
      };
    } finally {
      clearTimeout(timer);
    }

    const meta = captureUpstreamMeta(call, response.status, response.headers, echoes);
    observe(meta);
    await heed(response.status, response.headers);
    const mapped = transportError(response.status, response.headers, call);
    if (mapped) return { ok: false, error: mapped, upstream: meta };

    let body: unknown;
    if (text.trim() !== "") {
      if (!(await jsonCost(text, budget())).ok) {
        return { ok: false, error: tooCostlyError(call), upstream: meta };
      }
      try {
        body = JSON.parse(text);
      } catch {
        if (response.status >= 200 && response.status < 300) {
          return {
            ok: false,
            error: { code: "unavailable", message: `upstream answered unreadable JSON: ${call}` },
            upstream: meta,
          };
        }
        body = undefined;
      }
    }
    return { ok: true, value: { status: response.status, headers: response.headers, body }, upstream: meta };
  }

  const capturingFetch: typeof fetch = (input, init) => {
    const incoming = input instanceof Request ? input : undefined;
    const method = (init?.method ?? incoming?.method ?? "GET").toUpperCase();
    return inSpan(`${options.vendor} ${method}`, spanOptions(method), async (span) => {
      let last: CapturedCall | undefined;
      try {
        return await fetchCaptured(input, init, (entry) => (last = entry));
      } finally {
        describeCall(span, last?.meta, last?.failure);
      }
    });
  };

  const spanOptions = (method: string) => ({
    kind: "client" as const,
    attributes: { "upstream.vendor": options.vendor, "http.request.method": method },
  });

  /** The span of one request: the call line (contacts redacted), status, request id, failure. */
  function describeCall(span: Span, meta: UpstreamMeta | undefined, failure: string | undefined): void {
    if (meta !== undefined) {
      span.setAttribute("upstream.call", meta.call);
      if (meta.status > 0) span.setAttribute("http.response.status_code", meta.status);
      if (meta.request_id !== undefined) span.setAttribute("upstream.request_id", meta.request_id);
    }
    // A failure the client decided (timeout, too large…), else an error status the SDK reads.
    const failed = failure ?? (meta !== undefined && meta.status >= 400 ? `http_${meta.status}` : undefined);
    if (failed !== undefined) {
      span.setAttribute("upstream.outcome", failed);
      failSpan(span, failed);
    }
  }

  async function fetchCaptured(
    input: Parameters<typeof fetch>[0],
    init: Parameters<typeof fetch>[1],
    seen: (entry: CapturedCall) => void,
  ): Promise<Response> {
    const limit = maxBytes();
    const incoming = input instanceof Request ? input : undefined;
    const url = new URL(incoming ? incoming.url : input instanceof URL ? input.href : input);
    const method = (init?.method ?? incoming?.method ?? "GET").toUpperCase();
    const call = lineOf(method, url.pathname);
    const scope = captures.getStore();
    const record = (entry: CapturedCall): void => {
      seen(entry);
      scope?.calls.push(entry);
    };
    if (!within(url)) {
      record({ meta: { call, status: 0 }, failure: "refused" });
      throw new Error(`upstream request refused: ${call} is outside ${options.vendor}'s API`);
    }
    const wait = await mustWait();
    if (wait > 0) {
      record({ meta: { call, status: 0 }, failure: "rate_limited", retryAfterMs: wait });
      throw new Error(`upstream request held back: ${call} (${options.vendor} asked to wait)`);
    }
    let headers: Headers;
    try {
      headers = await finalHeaders(init?.headers ?? incoming?.headers);
    } catch (error) {
      if (scope) scope.credentialError ??= credentialError(error, call);
      throw error;
    }

    await spacer.wait();
    const timeout = AbortSignal.timeout(timeoutDefault);
    const signal = mergeSignals(timeout, init?.signal ?? incoming?.signal);
    let entry: { meta: UpstreamMeta; failure?: CapturedCall["failure"] } | undefined;
    try {
      const response = await doFetch(incoming ? new Request(incoming, { headers }) : url, {
        ...init,
        method,
        headers,
        signal,
      });
      const meta = captureUpstreamMeta(call, response.status, response.headers, echoes);
      entry = { meta };
      record(entry);
      observe(meta);
      await heed(response.status, response.headers);
      // The SDK parses the body itself, in one piece on the event loop: so it is read here under
      // the cap and the deadline, measured (json-cost.ts), and handed over only when its parse is
      // within the budget. A body over either bound marks this call (errorOf answers
      // upstream_too_large or upstream_too_costly) and the SDK's call fails.
      const bytes = await readBodyCapped(response, { maxBytes: limit, signal });
      const text = new TextDecoder("utf-8").decode(bytes);
      if (looksJson(response.headers.get("content-type"), text) && !(await jsonCost(text, budget())).ok) {
        entry.failure = "too_costly";
        throw new Error(`upstream answer not read: ${call} (over the gateway's parse budget)`);
      }
      return answerOf(response, bytes);
    } catch (error) {
      const failure = isTooLarge(error)
        ? "too_large"
        : isAbort(error) || timeout.aborted
          ? "timeout"
          : "unavailable";
      if (entry === undefined) record({ meta: { call, status: 0 }, failure });
      else entry.failure ??= failure;
      throw error;
    }
  }

  return {
    vendor: options.vendor,
    apiVersion: options.apiVersion,
    userAgent,
    request,
    fetch: capturingFetch,
    lastCall: () => captures.getStore()?.calls.at(-1),
    async withCapture<T>(run: () => Promise<T>): Promise<Captured<T>> {
      const scope: { calls: CapturedCall[]; credentialError?: ConnectorError } = { calls: [] };
      const { calls } = scope;
      const tail = (): Pick<Captured<T>, "meta" | "credentialError"> => {
        const meta = calls.at(-1)?.meta;
        return {
          ...(meta ? { meta } : {}),
          ...(scope.credentialError ? { credentialError: scope.credentialError } : {}),
        };
      };
      try {
        const value = await captures.run(scope, run);
        return { ok: true, value, calls, ...tail() };
      } catch (thrown) {
        return { ok: false, error: thrown, calls, ...tail() };
      }
    },
    errorOf(entry: CapturedCall): ConnectorError | undefined {
      if (entry.failure === "timeout")
        return { code: "timeout", message: `upstream timed out: ${entry.meta.call}` };
      if (entry.failure === "unavailable") {
        return { code: "unavailable", message: `upstream unreachable: ${entry.meta.call}` };
      }
      if (entry.failure === "rate_limited") return heldBack(entry.meta.call, entry.retryAfterMs ?? 0);
      if (entry.failure === "too_large") return tooLargeError(entry.meta.call, maxBytes());
      if (entry.failure === "too_costly") return tooCostlyError(entry.meta.call);
      if (entry.failure === "refused") {
        return { code: "invalid_request", message: `refused a request outside the API: ${entry.meta.call}` };
      }
      // Retry-After is not in the meta unless the platform sent it; ratelimit keeps it lowercase.
      const headers = new Headers(entry.meta.ratelimit ?? {});
      return transportError(entry.meta.status, headers, entry.meta.call);
    },
  };
}
