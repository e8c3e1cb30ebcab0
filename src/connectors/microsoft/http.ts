/**
 * Every Microsoft Graph call goes through `callGraph`: fetch with the injected token, the
 * `Prefer: outlook.timezone="UTC"` header (so every dateTimeTimeZone comes back in UTC), a
 * timeout, and the capture of the answer into UpstreamMeta (request-id, Deprecation, Sunset,
 * Retry-After and rate-limit headers). Kept here rather than in the shared connectors/http.ts,
 * which is being written apart; this module is the one place to switch over to it.
 *
 * Written over fetch rather than @microsoft/microsoft-graph-client: that client rebuilds every
 * URL from parsed parts (`api(url)` splits host, version, path and query, and joins them again
 * in its own order), and delta links must be replayed exactly as Graph wrote them; its default
 * middleware also retries 429/503 with sleeps inside the call, where the gateway's jobs should
 * decide. What remains (a bearer header, JSON, status mapping) is a few lines here.
 *
 * The token is asked for per call and sent only as the Authorization header; no message here
 * copies anything that could hold it.
 */
import { redactionMarker } from "../../protocol/osbp/index.js";
import type { ConnectorError, UpstreamMeta } from "../port.js";
import { captureUpstreamMeta } from "../http/meta.js";
import { MICROSOFT_GRAPH_PLATFORM } from "./platform.js";

export interface GraphHttpDeps {
  readonly accessToken: () => Promise<string>;
  readonly now?: () => number;
  readonly fetch?: typeof fetch;
  readonly timeoutMs?: number;
}

export interface Answered {
  readonly ok: true;
  readonly status: number;
  readonly data: unknown;
  readonly headers: Headers;
  readonly meta: UpstreamMeta;
}
export interface NotAnswered {
  readonly ok: false;
  readonly error: ConnectorError<"timeout" | "unavailable" | "unauthorized">;
  readonly meta?: UpstreamMeta;
}
export type Outcome = Answered | NotAnswered;

export interface GraphRequest {
  readonly method: "GET" | "POST" | "PATCH" | "DELETE";
  /** Absolute URL (a built one, or a nextLink/deltaLink replayed as written). */
  readonly url: string;
  readonly body?: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

/** "METHOD /v1.0/…": the URL's path, no query, segments holding an address redacted. */
export function callLine(method: string, url: string): string {
  let path: string;
  try {
    path = new URL(url).pathname;
  } catch {
    path = "/";
  }
  const segments = path.split("/").map((s) => {
    let decoded = s;
    try {
      decoded = decodeURIComponent(s);
    } catch {
      // leave as written
    }
    return decoded.includes("@") ? redactionMarker("email") : s;
  });
  return `${method} ${segments.join("/")}`;
}

export function metaOf(call: string, status: number, headers: Headers): UpstreamMeta {
  // The shared capture (src/connectors/http/meta.ts); Graph echoes no version, so the pin is named.
  return { ...captureUpstreamMeta(call, status, headers), api_version: MICROSOFT_GRAPH_PLATFORM.api_version };
}

export async function callGraph(deps: GraphHttpDeps, request: GraphRequest): Promise<Outcome> {
  const call = callLine(request.method, request.url);
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
  const headers: Record<string, string> = {
    Accept: "application/json",
    Prefer: 'outlook.timezone="UTC"',
    ...request.headers,
    Authorization: `Bearer ${token}`,
  };
  if (request.body !== undefined) headers["Content-Type"] = "application/json";
  const doFetch = deps.fetch ?? fetch;
  try {
    const res = await doFetch(request.url, {
      method: request.method,
      headers,
      ...(request.body !== undefined && { body: JSON.stringify(request.body) }),
      signal: AbortSignal.timeout(deps.timeoutMs ?? 30_000),
    });
    const text = await res.text();
    let data: unknown;
    if (text.length > 0) {
      try {
        data = JSON.parse(text);
      } catch {
        data = undefined;
      }
    }
    return {
      ok: true,
      status: res.status,
      data,
      headers: res.headers,
      meta: metaOf(call, res.status, res.headers),
    };
  } catch (e) {
    const name = (e as { name?: unknown } | null)?.name;
    const timedOut = name === "TimeoutError" || name === "AbortError";
    const error: NotAnswered["error"] = timedOut
      ? { code: "timeout", message: `${call}: no answer in time` }
      : { code: "unavailable", message: `${call}: no answer (network error)` };
    return { ok: false, error, meta: { call, status: 0 } };
  }
}
