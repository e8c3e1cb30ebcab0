/**
 * The Google Calendar connector (kind "calendar", SchCP §10): calendar sync, event writes and
 * push channels over Calendar API v3.
 *
 * Built on @googleapis/calendar, the googleapis project's package for this one API: the same
 * generated client and types as the `googleapis` bundle, without the bundle's ~100 MB of every
 * other Google API, and its current release runs on Node 20 (the bundle's latest needs 22).
 * The client is made without credentials: every request goes out through the shared upstream
 * client (connectors/http.ts, via http.ts), which attaches the injected provider's token, so
 * no token is kept here or seen by the SDK.
 */
import { calendar, type calendar_v3 } from "@googleapis/calendar";
import { systemClock, type Clock } from "../../protocol/clock.js";
import type { Logger } from "../../protocol/logger.js";
import type { UpstreamNotice, UpstreamPacing } from "../http.js";
import type { CalendarConnector } from "../port.js";
import { GoogleChannels } from "./channels.js";
import { GoogleEventWriter } from "./events.js";
import { createGoogleUpstream, type GoogleHttpDeps } from "./http.js";
import { GOOGLE_CALENDAR_PLATFORM } from "./platform.js";
import { validateGoogleCalendarSettings, type GoogleCalendarSettings } from "./settings.js";
import { GoogleCalendarSync } from "./sync.js";

export interface GoogleCalendarDeps {
  /** A current OAuth access token (scope calendar.events or calendar); never logged or kept. */
  readonly accessToken: () => Promise<string>;
  /** Default systemClock. */
  readonly clock?: Clock;
  /** The transport's fetch under the shared upstream client (default the global fetch). */
  readonly fetch?: typeof fetch;
  /** A prepared client (default one made here); its rootUrl is where the token may be sent. */
  readonly client?: calendar_v3.Calendar;
  /** Operator log for Deprecation/Sunset (default: console, JSON). */
  readonly logger?: Pick<Logger, "warn">;
  /** Every Deprecation/Sunset notice, for the integrator to record per host. */
  readonly onNotice?: (notice: UpstreamNotice) => void;
  /** Retry-After honoured across calls and processes (connectors/http/pacing.ts). */
  readonly pacing?: UpstreamPacing;
}

export interface GoogleCalendarConnector extends CalendarConnector {
  readonly kind: "calendar";
  readonly calendar: GoogleCalendarSync;
  readonly events: GoogleEventWriter;
  readonly channels: GoogleChannels;
}

/** Throws TypeError naming the field when the settings are invalid (validate them at start). */
export function createGoogleCalendarConnector(
  settings: GoogleCalendarSettings,
  deps: GoogleCalendarDeps,
): GoogleCalendarConnector {
  const valid = validateGoogleCalendarSettings(settings);
  if (!valid.ok) throw new TypeError(`Google Calendar settings ${valid.error.field}: ${valid.error.message}`);
  if (typeof deps.accessToken !== "function")
    throw new TypeError("Google Calendar deps.accessToken must be a function");
  const api = deps.client ?? calendar({ version: "v3" });
  const rootUrl = api.context._options.rootUrl;
  const clock = deps.clock ?? systemClock;
  const upstream = createGoogleUpstream({
    accessToken: deps.accessToken,
    timeoutMs: valid.value.timeoutMs,
    ...(rootUrl !== undefined && { rootUrl }),
    clock,
    ...(deps.fetch !== undefined && { fetch: deps.fetch }),
    ...(deps.logger !== undefined && { logger: deps.logger }),
    ...(deps.onNotice !== undefined && { onNotice: deps.onNotice }),
    ...(deps.pacing !== undefined && { pacing: deps.pacing }),
  });
  const http: GoogleHttpDeps = { upstream, clock };
  return {
    platform: GOOGLE_CALENDAR_PLATFORM,
    kind: "calendar",
    calendar: new GoogleCalendarSync(api, http, valid.value.pageSize),
    events: new GoogleEventWriter(api, http),
    channels: new GoogleChannels(api, http),
  };
}
