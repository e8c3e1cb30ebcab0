/**
 * What every Openings module shares: the settings, the clock and the one upstream client
 * (connectors/http.ts: the base URL, the /v1 pin, no credential, the timeout, pacing), with
 * `call` for one request and `dataFrom` for a `{ ok, data }` answer's data.
 */
import { systemClock, type Clock } from "../../protocol/clock.js";
import type { Logger } from "../../protocol/logger.js";
import {
  createUpstreamClient,
  type UpstreamClient,
  type UpstreamNotice,
  type UpstreamPacing,
  type UpstreamResponse,
} from "../http.js";
import type { ConnectorResult } from "../ports/result.js";
import { OPENINGS_PLATFORM } from "./platform.js";
import { fail, statusError, unreadable, withMeta } from "./results.js";
import type { OpeningsSettings } from "./settings.js";
import { dataOf, errorOf } from "./wire.js";

export interface OpeningsDeps {
  readonly fetch?: typeof fetch;
  readonly clock?: Clock;
  readonly logger?: Pick<Logger, "warn">;
  readonly onNotice?: (notice: UpstreamNotice) => void;
  /** Retry-After honoured across calls and processes (connectors/http/pacing.ts). */
  readonly pacing?: UpstreamPacing;
}

export interface OpeningsContext {
  readonly settings: OpeningsSettings;
  readonly clock: Clock;
  /** One request through the upstream client. */
  readonly call: (
    method: string,
    path: string,
    extra?: {
      query?: Record<string, string | undefined>;
      body?: unknown;
      headers?: Record<string, string>;
    },
  ) => Promise<ConnectorResult<UpstreamResponse>>;
}

export function createOpeningsContext(settings: OpeningsSettings, deps: OpeningsDeps): OpeningsContext {
  const clock = deps.clock ?? systemClock;
  const client: UpstreamClient = createUpstreamClient({
    vendor: OPENINGS_PLATFORM.vendor,
    apiVersion: OPENINGS_PLATFORM.api_version,
    baseUrl: settings.baseUrl,
    pin: { pathPrefix: "/v1" },
    // No credential is sent, so no status can mean a revoked one: a 401/403 from the public API
    // means the customer is not verified (history), mapped in results.ts.
    unauthorizedStatuses: [],
    clock,
    ...(settings.timeoutMs !== undefined ? { timeoutMs: settings.timeoutMs } : {}),
    ...(settings.maxPerSecond !== undefined ? { maxPerSecond: settings.maxPerSecond } : {}),
    ...(deps.fetch !== undefined ? { fetch: deps.fetch } : {}),
    ...(deps.logger !== undefined ? { logger: deps.logger } : {}),
    ...(deps.onNotice !== undefined ? { onNotice: deps.onNotice } : {}),
    ...(deps.pacing !== undefined ? { pacing: deps.pacing } : {}),
  });
  return {
    settings,
    clock,
    call: (method, path, extra = {}) => client.request({ method, path, ...extra }),
  };
}

/** A 2xx `{ ok, data }` answer's data, or the error the status means. */
export function dataFrom<T>(
  r: ConnectorResult<UpstreamResponse>,
  read: (d: unknown) => T | undefined,
  what: string,
): ConnectorResult<T> {
  if (!r.ok) return r;
  const { status, body } = r.value;
  if (status >= 200 && status < 300) {
    const value = read(dataOf(body));
    return value === undefined ? unreadable(what, r.upstream) : withMeta(value, r.upstream);
  }
  return fail(statusError(status, errorOf(body), what), r.upstream);
}
