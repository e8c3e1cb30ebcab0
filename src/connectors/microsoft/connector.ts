/**
 * The Microsoft 365 calendar connector (kind "calendar", SchCP §10): calendar sync, event
 * writes and change-notification subscriptions over Microsoft Graph v1.0, through the shared
 * upstream client with the injected fetch and token provider (http.ts; it also says why not
 * @microsoft/microsoft-graph-client).
 */
import { systemClock, type Clock } from "../../protocol/clock.js";
import type { Logger } from "../../protocol/logger.js";
import type { UpstreamNotice, UpstreamPacing } from "../http.js";
import type { CalendarConnector } from "../port.js";
import { GraphEventWriter } from "./events.js";
import { createGraphUpstream, type GraphHttpDeps } from "./http.js";
import { GraphPaths } from "./paths.js";
import { MICROSOFT_GRAPH_PLATFORM } from "./platform.js";
import { validateMicrosoftCalendarSettings, type MicrosoftCalendarSettings } from "./settings.js";
import { GraphSubscriptions } from "./subscriptions.js";
import { GraphCalendarSync } from "./sync.js";

export interface MicrosoftCalendarDeps {
  /** A current OAuth access token for Graph (Calendars.ReadWrite); never logged or kept. */
  readonly accessToken: () => Promise<string>;
  /** Default systemClock. */
  readonly clock?: Clock;
  /** Under the shared upstream client; default the global fetch. */
  readonly fetch?: typeof fetch;
  /** Operator log for Deprecation/Sunset (default: console, JSON). */
  readonly logger?: Pick<Logger, "warn">;
  /** Every Deprecation/Sunset notice, for the integrator to record per host. */
  readonly onNotice?: (notice: UpstreamNotice) => void;
  /** Retry-After honoured across calls and processes (connectors/http/pacing.ts). */
  readonly pacing?: UpstreamPacing;
}

export interface MicrosoftCalendarConnector extends CalendarConnector {
  readonly kind: "calendar";
  readonly calendar: GraphCalendarSync;
  readonly events: GraphEventWriter;
  readonly subscriptions: GraphSubscriptions;
}

/** Throws TypeError naming the field when the settings are invalid (validate them at start). */
export function createMicrosoftCalendarConnector(
  settings: MicrosoftCalendarSettings,
  deps: MicrosoftCalendarDeps,
): MicrosoftCalendarConnector {
  const valid = validateMicrosoftCalendarSettings(settings);
  if (!valid.ok)
    throw new TypeError(`Microsoft 365 calendar settings ${valid.error.field}: ${valid.error.message}`);
  if (typeof deps.accessToken !== "function")
    throw new TypeError("Microsoft 365 calendar deps.accessToken must be a function");
  const paths = new GraphPaths(valid.value.baseUrl, valid.value.user);
  const clock = deps.clock ?? systemClock;
  const upstream = createGraphUpstream({
    accessToken: deps.accessToken,
    baseUrl: valid.value.baseUrl,
    timeoutMs: valid.value.timeoutMs,
    clock,
    ...(deps.fetch !== undefined && { fetch: deps.fetch }),
    ...(deps.logger !== undefined && { logger: deps.logger }),
    ...(deps.onNotice !== undefined && { onNotice: deps.onNotice }),
    ...(deps.pacing !== undefined && { pacing: deps.pacing }),
  });
  const http: GraphHttpDeps = { upstream, clock };
  return {
    platform: MICROSOFT_GRAPH_PLATFORM,
    kind: "calendar",
    calendar: new GraphCalendarSync(paths, http, valid.value.pageSize),
    events: new GraphEventWriter(paths, http),
    subscriptions: new GraphSubscriptions(paths, http),
  };
}
