/**
 * The one upstream client of Square's API (src/connectors/http.ts): Square-Version pinned, the
 * seller's access token attached, the environment's origin unless a base URL is given. The
 * connector (client.ts) and the console's setup page (through the composition root) both call
 * Square through one made here.
 */
import type { Clock } from "../../protocol/clock.js";
import type { Logger } from "../../protocol/logger.js";
import {
  createUpstreamClient,
  type UpstreamClient,
  type UpstreamNotice,
  type UpstreamPacing,
} from "../http.js";
import { BASE_URLS, type SquareEnvironmentName } from "./settings.js";

export const SQUARE_VENDOR = "square";

export interface SquareUpstreamOptions {
  /** The seller's current access token. */
  readonly accessToken: () => Promise<string>;
  /** The Square-Version every request is pinned to. */
  readonly version: string;
  readonly environment: SquareEnvironmentName;
  /** Overrides the environment's origin (tests, a proxy). */
  readonly baseUrl?: string;
  readonly timeoutMs: number;
  /** Scales the JSON parse budget down for a caller that parses more slowly (the SDK). */
  readonly parseCostFactor?: number;
  readonly clock?: Clock;
  readonly fetch?: typeof fetch;
  readonly logger?: Pick<Logger, "warn">;
  readonly onNotice?: (notice: UpstreamNotice) => void;
  readonly pacing?: UpstreamPacing;
}

export function createSquareUpstream(options: SquareUpstreamOptions): UpstreamClient {
  return createUpstreamClient({
    vendor: SQUARE_VENDOR,
    apiVersion: options.version,
    baseUrl: options.baseUrl ?? BASE_URLS[options.environment],
    pin: { header: "Square-Version", value: options.version },
    credentials: async () => ({ authorization: `Bearer ${await options.accessToken()}` }),
    timeoutMs: options.timeoutMs,
    versionEchoHeaders: ["square-version"],
    ...(options.parseCostFactor !== undefined && { parseCostFactor: options.parseCostFactor }),
    ...(options.clock !== undefined && { clock: options.clock }),
    ...(options.fetch !== undefined && { fetch: options.fetch }),
    ...(options.logger !== undefined && { logger: options.logger }),
    ...(options.onNotice !== undefined && { onNotice: options.onNotice }),
    ...(options.pacing !== undefined && { pacing: options.pacing }),
  });
}
