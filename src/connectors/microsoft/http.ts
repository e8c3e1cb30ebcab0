/**
 * Every Microsoft Graph call goes through `callGraph`, a thin layer over the shared upstream
 * client (connectors/http.ts): that client attaches the token, sends the User-Agent, bounds the
 * call, refuses any URL outside `{root}/v1.0/` (the pin is the path: every URL carries v1.0,
 * and a delta link pointing elsewhere never gets the token), captures UpstreamMeta
 * (request-id, Deprecation, Sunset, Retry-After, rate-limit headers), announces Deprecation and
 * Sunset, and maps 401/403, 429 and 5xx with their Retry-After. Added here: the
 * `Prefer: outlook.timezone="UTC"` header on every call (so every dateTimeTimeZone comes back in
 * UTC) and the pinned version in the meta of an answer (Graph echoes none).
 *
 * Written over fetch rather than @microsoft/microsoft-graph-client: that client rebuilds every
 * URL from parsed parts (`api(url)` splits host, version, path and query, and joins them again
 * in its own order), and delta links must be replayed exactly as Graph wrote them (sent here as
 * `link`s, never rebuilt); its default middleware also retries 429/503 with sleeps inside the
 * call, where the gateway's jobs should decide.
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
import type { UpstreamMeta } from "../port.js";
import { MICROSOFT_GRAPH_PLATFORM } from "./platform.js";

const PIN = "/v1.0";

export interface GraphUpstreamOptions {
  /** A current OAuth access token for Graph. */
  readonly accessToken: () => Promise<string>;
  /** Graph's root with the version, as the settings have it ("https://graph.microsoft.com/v1.0"). */
  readonly baseUrl: string;
  readonly timeoutMs: number;
  /** Default systemClock. */
  readonly clock?: Clock;
  readonly fetch?: typeof fetch;
  readonly logger?: Pick<Logger, "warn">;
  readonly onNotice?: (notice: UpstreamNotice) => void;
  readonly pacing?: UpstreamPacing;
}

/** The one upstream client of a Microsoft 365 calendar connector. */
export function createGraphUpstream(options: GraphUpstreamOptions): UpstreamClient {
  return createUpstreamClient({
    vendor: MICROSOFT_GRAPH_PLATFORM.vendor,
    apiVersion: MICROSOFT_GRAPH_PLATFORM.api_version,
    baseUrl: options.baseUrl.replace(/\/+$/, "").slice(0, -PIN.length),
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

/** What the sync, the writer and the subscriptions share. */
export interface GraphHttpDeps {
  readonly upstream: UpstreamClient;
  /** Retry-After dates and subscription arithmetic. */
  readonly clock: Clock;
}

export interface GraphRequest {
  readonly method: "GET" | "POST" | "PATCH" | "DELETE";
  /** Absolute URL (a built one, or a nextLink/deltaLink replayed as written). */
  readonly url: string;
  readonly body?: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

/** An answer's meta names the pinned version; a call that got no answer has only its line and 0. */
const withVersion = (meta: UpstreamMeta): UpstreamMeta =>
  meta.status === 0 ? meta : { ...meta, api_version: MICROSOFT_GRAPH_PLATFORM.api_version };

export async function callGraph(deps: GraphHttpDeps, request: GraphRequest): Promise<CallOutcome> {
  const result = await deps.upstream.request({
    method: request.method,
    link: request.url,
    headers: { Prefer: 'outlook.timezone="UTC"', ...request.headers },
    ...(request.body !== undefined && { body: request.body }),
  });
  if (!result.ok) {
    return { ok: false, error: result.error, ...(result.upstream && { meta: withVersion(result.upstream) }) };
  }
  const { status, body, headers } = result.value;
  // request() answers every result with the meta of its call.
  const meta = withVersion(result.upstream ?? { call: `${request.method} ${PIN}`, status });
  return { ok: true, value: { status, data: body, headers }, meta };
}
