/**
 * The Google Calendar connector (kind "calendar", SchCP §10): calendar sync, event writes and
 * push channels over Calendar API v3.
 *
 * Built on @googleapis/calendar, the googleapis project's package for this one API: the same
 * generated client and types as the `googleapis` bundle, without the bundle's ~100 MB of every
 * other Google API, and its current release runs on Node 20 (the bundle's latest needs 22).
 * The client is made without credentials; each call sends the injected provider's token
 * (http.ts), so one client serves any number of businesses and no token is kept here.
 */
import { calendar, type calendar_v3 } from "@googleapis/calendar";
import type { CalendarConnector } from "../port.js";
import { GoogleChannels } from "./channels.js";
import { GoogleEventWriter } from "./events.js";
import type { GoogleHttpDeps } from "./http.js";
import { GOOGLE_CALENDAR_PLATFORM } from "./platform.js";
import { validateGoogleCalendarSettings, type GoogleCalendarSettings } from "./settings.js";
import { GoogleCalendarSync } from "./sync.js";

export interface GoogleCalendarDeps {
  /** A current OAuth access token (scope calendar.events or calendar); never logged or kept. */
  readonly accessToken: () => Promise<string>;
  readonly now?: () => number;
  /** The transport's fetch (default the SDK's). */
  readonly fetch?: typeof fetch;
  /** A prepared client (default one made here). */
  readonly client?: calendar_v3.Calendar;
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
  const http: GoogleHttpDeps = {
    accessToken: deps.accessToken,
    timeoutMs: valid.value.timeoutMs,
    ...(deps.now !== undefined && { now: deps.now }),
    ...(deps.fetch !== undefined && { fetch: deps.fetch }),
  };
  return {
    platform: GOOGLE_CALENDAR_PLATFORM,
    kind: "calendar",
    calendar: new GoogleCalendarSync(api, http, valid.value.pageSize),
    events: new GoogleEventWriter(api, http),
    channels: new GoogleChannels(api, http),
  };
}
