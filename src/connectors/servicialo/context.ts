/**
 * What every Servicialo module shares: the settings, the clock, the one upstream client
 * (connectors/http.ts: the base URL, the `/api/servicialo/{orgSlug}` pin, `X-Org-Api-Key` on
 * authed calls only, the timeout, pacing) behind `send`, which retries a 500 or 502 once, and
 * what earlier answers told (each slot's start text, each service's currency).
 */
import { systemClock, type Clock } from "../../protocol/clock.js";
import type { Logger } from "../../protocol/logger.js";
import {
  createUpstreamClient,
  type UpstreamClient,
  type UpstreamNotice,
  type UpstreamPacing,
} from "../http.js";
import type { ConnectorResult } from "../ports/result.js";
import { SERVICIALO_PLATFORM } from "./platform.js";
import type { ServicialoSettings } from "./settings.js";

export interface ServicialoDeps {
  readonly fetch?: typeof fetch;
  readonly clock?: Clock;
  readonly sleep?: (ms: number) => Promise<void>;
  readonly logger?: Pick<Logger, "warn">;
  readonly onNotice?: (notice: UpstreamNotice) => void;
  /** Wait before the one retry of a 500 or 502 ("Error Recovery": retry once after 5 seconds). */
  readonly retryDelayMs?: number;
  /** Retry-After honoured across calls and processes (connectors/http/pacing.ts). */
  readonly pacing?: UpstreamPacing;
}

export type Sent = ConnectorResult<{ readonly status: number; readonly body: unknown }>;

export interface ServicialoContext {
  readonly settings: ServicialoSettings;
  readonly clock: Clock;
  /** One call; a 500 or 502 is retried once ("HTTP Status Codes": 500 retry once; 502 retry). */
  send(
    method: string,
    path: string,
    extra?: { query?: Record<string, string | number | undefined>; body?: unknown; authed?: boolean },
  ): Promise<{ readonly result: Sent; readonly retried: boolean }>;
  /** The verbatim start text of each slot seen, so a booking sends the slot's start as it came. */
  readonly startTexts: Map<number, string>;
  /** Each service's listed currency (last catalog read): a slot's stated total in another is not read. */
  readonly currencies: Map<string, string>;
}

export function createServicialoContext(
  settings: ServicialoSettings,
  deps: ServicialoDeps,
): ServicialoContext {
  const clock = deps.clock ?? systemClock;
  const sleep = deps.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const retryDelayMs = deps.retryDelayMs ?? 5_000;
  const apiKey = settings.apiKey;
  const client: UpstreamClient = createUpstreamClient({
    vendor: SERVICIALO_PLATFORM.vendor,
    apiVersion: SERVICIALO_PLATFORM.api_version,
    baseUrl: settings.baseUrl,
    pin: { pathPrefix: `/api/servicialo/${encodeURIComponent(settings.orgSlug)}` },
    ...(apiKey !== undefined ? { credentials: () => Promise.resolve({ "X-Org-Api-Key": apiKey }) } : {}),
    ...(settings.timeoutMs !== undefined ? { timeoutMs: settings.timeoutMs } : {}),
    ...(settings.maxPerSecond !== undefined ? { maxPerSecond: settings.maxPerSecond } : {}),
    ...(deps.fetch !== undefined ? { fetch: deps.fetch } : {}),
    clock,
    ...(deps.logger !== undefined ? { logger: deps.logger } : {}),
    ...(deps.onNotice !== undefined ? { onNotice: deps.onNotice } : {}),
    ...(deps.pacing !== undefined ? { pacing: deps.pacing } : {}),
  });

  async function send(
    method: string,
    path: string,
    extra: { query?: Record<string, string | number | undefined>; body?: unknown; authed?: boolean } = {},
  ): Promise<{ readonly result: Sent; readonly retried: boolean }> {
    const request = {
      method,
      path,
      ...(extra.query !== undefined ? { query: extra.query } : {}),
      ...(extra.body !== undefined ? { body: extra.body } : {}),
      anonymous: extra.authed !== true,
    };
    const first = await client.request(request);
    const status = first.upstream?.status;
    if (first.ok || (status !== 500 && status !== 502)) return { result: first, retried: false };
    await sleep(retryDelayMs);
    return { result: await client.request(request), retried: true };
  }

  return { settings, clock, send, startTexts: new Map(), currencies: new Map() };
}
