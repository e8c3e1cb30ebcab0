/**
 * Every Google Calendar call goes through `callGoogle`: the access token (asked for per call,
 * sent only as the Authorization header), the SDK's per-request options, and the capture of
 * the answer into UpstreamMeta. Kept here rather than in the shared connectors/http.ts, which
 * is being written apart; this module is the one place to switch over to it.
 *
 * The SDK's own retry is off (`retry: false`): retries belong to the gateway's jobs, which
 * see rate_limited with its Retry-After. Every status is accepted (`validateStatus`), so an
 * error answer is read here like any other and never surfaces as a GaxiosError, whose config
 * holds the request headers. Messages are written here; nothing upstream-written (and so
 * nothing that could hold the token) is copied into an error.
 *
 * Google sends no standard request id header (the JSON API's answers carry none that is
 * documented as such), so `request_id` stays empty; `server` is the front end's ("ESF").
 */
import { redactionMarker } from "../../protocol/osbp/index.js";
import type { ConnectorError, UpstreamMeta } from "../port.js";
import { captureUpstreamMeta } from "../http/meta.js";
import { GOOGLE_CALENDAR_PLATFORM } from "./platform.js";

/** What a connector needs from the outside for HTTP. */
export interface GoogleHttpDeps {
  /** A current OAuth access token for the business's Google account. */
  readonly accessToken: () => Promise<string>;
  /** Clock for Retry-After dates and subscription arithmetic; default Date.now. */
  readonly now?: () => number;
  /** A fetch for the SDK's transport (gaxios `fetchImplementation`); default the SDK's own. */
  readonly fetch?: typeof fetch;
  /** Abort a call after this long (ms); default 30 s. */
  readonly timeoutMs?: number;
}

/** The slice of a gaxios answer read here (the SDK's response type, structurally). */
export interface SdkAnswer {
  readonly status: number;
  readonly data: unknown;
  /** Headers-like (gaxios 7, node-fetch's class); a plain object only on the SDK's HTTP/2 path, not used here. */
  readonly headers: unknown;
}

/** Google's answer headers as a fetch Headers (gaxios hands node-fetch's own class, not the global one). */
function headersOf(raw: unknown): Headers {
  if (raw instanceof Headers) return raw;
  const out = new Headers();
  const iterable = raw as { forEach?: unknown } | null;
  if (typeof iterable?.forEach === "function") {
    (raw as { forEach(cb: (value: string, name: string) => void): void }).forEach((value, name) =>
      out.append(name, value),
    );
  } else if (raw !== null && typeof raw === "object") {
    for (const [name, value] of Object.entries(raw as Record<string, unknown>)) {
      if (typeof value === "string") out.set(name, value);
      else if (Array.isArray(value)) out.set(name, value.join(", "));
    }
  }
  return out;
}

/** Per-request options passed to every SDK method as its second argument. */
export interface SdkCallOptions {
  readonly headers: Record<string, string>;
  readonly retry: false;
  readonly validateStatus: (status: number) => boolean;
  readonly timeout: number;
  readonly fetchImplementation?: typeof fetch;
}

export interface Answered {
  readonly ok: true;
  readonly status: number;
  readonly data: unknown;
  readonly headers: Headers;
  readonly meta: UpstreamMeta;
}
/** No answer to read: the token provider failed (no call made, no meta) or the call did not complete. */
export interface NotAnswered {
  readonly ok: false;
  readonly error: ConnectorError<"timeout" | "unavailable" | "unauthorized">;
  readonly meta?: UpstreamMeta;
}
export type Outcome = Answered | NotAnswered;

/** Path segments that can carry contact data (a calendar id is often its owner's address). */
function redactSegment(segment: string): string {
  return segment.includes("@") ? redactionMarker("email") : encodeURIComponent(segment);
}

/** "METHOD /calendar/v3/…" from the path segments after the API root; no query. */
export function callLine(method: string, segments: readonly string[]): string {
  return `${method} /calendar/v3/${segments.map(redactSegment).join("/")}`;
}

/** The metadata of an answer (OSBP UpstreamMeta). */
export function metaOf(call: string, status: number, headers: Headers): UpstreamMeta {
  // The shared capture (src/connectors/http/meta.ts); Google echoes no version, so the pin is named.
  return { ...captureUpstreamMeta(call, status, headers), api_version: GOOGLE_CALENDAR_PLATFORM.api_version };
}

/**
 * Calls one SDK method with the token and the shared options, and reads the answer. A token
 * provider that throws is `unauthorized` when it says so (`code: "unauthorized"`, a revoked
 * grant), else `unavailable`; its message is not copied (it may hold secrets).
 */
export async function callGoogle(
  deps: GoogleHttpDeps,
  call: string,
  run: (options: SdkCallOptions) => Promise<SdkAnswer>,
  extraHeaders: Readonly<Record<string, string>> = {},
): Promise<Outcome> {
  let token: string;
  try {
    token = await deps.accessToken();
  } catch (e) {
    const revoked = (e as { code?: unknown } | null)?.code === "unauthorized";
    return {
      ok: false,
      error: { code: revoked ? "unauthorized" : "unavailable", message: "the access token provider failed" },
    };
  }
  const options: SdkCallOptions = {
    headers: { ...extraHeaders, Authorization: `Bearer ${token}` },
    retry: false,
    validateStatus: () => true,
    timeout: deps.timeoutMs ?? 30_000,
    ...(deps.fetch !== undefined && { fetchImplementation: deps.fetch }),
  };
  try {
    const res = await run(options);
    const headers = headersOf(res.headers);
    return { ok: true, status: res.status, data: res.data, headers, meta: metaOf(call, res.status, headers) };
  } catch (e) {
    const timedOut = isTimeout(e);
    const error: NotAnswered["error"] = timedOut
      ? { code: "timeout", message: `${call}: no answer in time` }
      : { code: "unavailable", message: `${call}: no answer (network error)` };
    return { ok: false, error, meta: { call, status: 0 } };
  }
}

/** A timeout as gaxios reports it: a GaxiosError whose `error`/`cause` is the fetch's AbortError. */
function isTimeout(e: unknown): boolean {
  const names = (x: unknown): unknown[] => {
    const o = x as { name?: unknown; code?: unknown; type?: unknown } | null;
    return [o?.name, o?.code, o?.type];
  };
  const x = e as { error?: unknown; cause?: unknown } | null;
  return [...names(e), ...names(x?.error), ...names(x?.cause)].some(
    (v) =>
      v === "AbortError" ||
      v === "TimeoutError" ||
      v === "ETIMEDOUT" ||
      v === "request-timeout" ||
      v === "aborted",
  );
}
