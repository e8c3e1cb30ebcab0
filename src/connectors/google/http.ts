/**
 * Every Google Calendar call goes through `callGoogle`: the SDK method runs inside the shared
 * upstream client's capture (connectors/http.ts), with that client's fetch as the SDK's
 * transport (gaxios `fetchImplementation`, a per-request option). So the access token, the
 * User-Agent, the timeout, the check that nothing leaves Google's `/calendar/v3` root (the pin:
 * v3 is in every path), UpstreamMeta and the Deprecation/Sunset notices are that client's, as
 * for every other upstream; the SDK itself never sees the token.
 *
 * The SDK's own retry is off (`retry: false`): retries belong to the gateway's jobs, which see
 * rate_limited with its Retry-After. Every status is accepted (`validateStatus`), so an error
 * answer is read by errors.ts like any other and never surfaces as a GaxiosError, whose config
 * holds the request. Messages are written here; nothing upstream-written is copied into one.
 *
 * Google sends no standard request id header (the JSON API's answers carry none documented as
 * such), so `request_id` stays empty; `server` is the front end's ("ESF"); Google echoes no
 * version, so the meta of an answer names the pinned one.
 */
import { redactionMarker } from "../../protocol/osbp/index.js";
import type { Clock } from "../../protocol/clock.js";
import type { Logger } from "../../protocol/logger.js";
import {
  createUpstreamClient,
  type CallOutcome,
  type UpstreamClient,
  type UpstreamNotice,
  type UpstreamPacing,
} from "../http.js";
import type { ConnectorError } from "../port.js";
import { GOOGLE_CALENDAR_PLATFORM } from "./platform.js";

/** Where the SDK sends requests unless a client is made with another rootUrl. */
const GOOGLE_ROOT_URL = "https://www.googleapis.com";
const PIN = "/calendar/v3";

export interface GoogleUpstreamOptions {
  /** A current OAuth access token for the business's Google account. */
  readonly accessToken: () => Promise<string>;
  readonly timeoutMs: number;
  readonly rootUrl?: string;
  /** Default systemClock. */
  readonly clock?: Clock;
  readonly fetch?: typeof fetch;
  readonly logger?: Pick<Logger, "warn">;
  readonly onNotice?: (notice: UpstreamNotice) => void;
  readonly pacing?: UpstreamPacing;
}

/** The one upstream client of a Google Calendar connector. */
export function createGoogleUpstream(options: GoogleUpstreamOptions): UpstreamClient {
  return createUpstreamClient({
    vendor: GOOGLE_CALENDAR_PLATFORM.vendor,
    apiVersion: GOOGLE_CALENDAR_PLATFORM.api_version,
    baseUrl: options.rootUrl ?? GOOGLE_ROOT_URL,
    pin: { pathPrefix: PIN },
    credentials: async () => ({ authorization: `Bearer ${await options.accessToken()}` }),
    timeoutMs: options.timeoutMs,
    marker: (kind) => redactionMarker(kind === "other" ? "name" : kind),
    ...(options.clock !== undefined && { clock: options.clock }),
    ...(options.fetch !== undefined && { fetch: options.fetch }),
    ...(options.logger !== undefined && { logger: options.logger }),
    ...(options.onNotice !== undefined && { onNotice: options.onNotice }),
    ...(options.pacing !== undefined && { pacing: options.pacing }),
  });
}

/** What the sync, the writer and the channels share. */
export interface GoogleHttpDeps {
  readonly upstream: UpstreamClient;
  /** Retry-After dates and subscription arithmetic. */
  readonly clock: Clock;
}

/** The slice of a gaxios answer read here (the SDK's response type, structurally). */
export interface SdkAnswer {
  readonly status: number;
  readonly data: unknown;
  /** Headers-like (the fetch's own Headers); a plain object only on the SDK's HTTP/2 path, not used here. */
  readonly headers: unknown;
}

/** Google's answer headers as a fetch Headers. */
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
  /** Non-credential headers of this call (If-Match); the token is the upstream client's. */
  readonly headers: Record<string, string>;
  readonly retry: false;
  readonly validateStatus: (status: number) => boolean;
  readonly fetchImplementation: typeof fetch;
}

/** Path segments that can carry contact data (a calendar id is often its owner's address). */
function redactSegment(segment: string): string {
  return segment.includes("@") ? redactionMarker("email") : encodeURIComponent(segment);
}

/** "METHOD /calendar/v3/…" from the path segments after the API root: the line when no call was made. */
export function callLine(method: string, segments: readonly string[]): string {
  return `${method} ${PIN}/${segments.map(redactSegment).join("/")}`;
}

/**
 * Calls one SDK method inside the upstream client's capture and reads the answer. `call` is the
 * line reported when the SDK failed before any request went out. A token provider that throws
 * is `unauthorized` when it says so (`code: "unauthorized"`, a revoked grant), else
 * `unavailable`, with no meta: nothing was sent.
 */
export async function callGoogle(
  deps: GoogleHttpDeps,
  call: string,
  run: (options: SdkCallOptions) => Promise<SdkAnswer>,
  extraHeaders: Readonly<Record<string, string>> = {},
): Promise<CallOutcome> {
  const options: SdkCallOptions = {
    headers: { ...extraHeaders },
    retry: false,
    validateStatus: () => true,
    fetchImplementation: deps.upstream.fetch,
  };
  const captured = await deps.upstream.withCapture(() => run(options));
  if (captured.credentialError !== undefined) return { ok: false, error: captured.credentialError };
  const last = captured.calls.at(-1);
  if (captured.ok) {
    const { status, data } = captured.value;
    const headers = headersOf(captured.value.headers);
    const seen = last?.meta ?? { call, status };
    const meta = { ...seen, api_version: GOOGLE_CALENDAR_PLATFORM.api_version };
    return { ok: true, value: { status, data, headers }, meta };
  }
  const transport = last === undefined ? undefined : deps.upstream.errorOf(last);
  if (last !== undefined && transport !== undefined) return { ok: false, error: transport, meta: last.meta };
  // The request never went out, or its answer's body could not be read to the end.
  const line = last?.meta.call ?? call;
  const error: ConnectorError = isTimeout(captured.error)
    ? { code: "timeout", message: `${line}: no answer in time` }
    : { code: "unavailable", message: `${line}: no answer (network error)` };
  return { ok: false, error, meta: { call: line, status: 0 } };
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
