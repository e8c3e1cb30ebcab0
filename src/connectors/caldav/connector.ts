/**
 * The CalDAV connector (RFC 4791 CalDAV, RFC 6578 collection sync): a calendar host's busy time
 * read from, and its bookings written into, any CalDAV server (Nextcloud, Radicale, Baïkal,
 * iCloud, Fastmail, xandikos…). Kind "calendar": calendar sync and event writes; it has no
 * catalog (the host configures its services).
 *
 * A plain translator: fetch, clock and timeout come in as dependencies; settings are checked by
 * validateCaldavSettings; nothing is read from the environment or kept between calls.
 */
import { systemClock, type Clock } from "../../protocol/clock.js";
import type { Logger } from "../../protocol/logger.js";
import type { UpstreamNotice } from "../http.js";
import type { CalendarSync, Connector, ConnectorResult, EventWriter } from "../port.js";
import type { CaldavContext } from "./context.js";
import { discoverCalendars, type DiscoveredCalendar } from "./discover.js";
import { calendarUrl } from "./resources.js";
import { validateCaldavSettings, type CaldavSettings } from "./settings.js";
import { createCalendarSync } from "./sync.js";
import { CALDAV_PLATFORM, createSend } from "./upstream.js";
import { createEventWriter } from "./writer.js";

const DEFAULT_TIMEOUT_MS = 20_000;

export interface CaldavDeps {
  readonly fetch?: typeof globalThis.fetch;
  readonly clock?: Clock;
  /** Per request, ms (default 20 s); a request past it is `timeout`. */
  readonly timeoutMs?: number;
  /** Operator log for Deprecation/Sunset (default: console, JSON). */
  readonly logger?: Pick<Logger, "warn">;
  /** Every Deprecation/Sunset notice, for the integrator to record per host. */
  readonly onNotice?: (notice: UpstreamNotice) => void;
}

export interface CaldavConnector extends Connector {
  readonly kind: "calendar";
  readonly calendar: CalendarSync;
  readonly events: EventWriter;
  /** The calendar collection of the settings (calendarPath) as a calendarId, when set. */
  readonly calendarId?: string;
  /** Onboarding: the account's calendars that take events (discover.ts). */
  discoverCalendars(): Promise<ConnectorResult<readonly DiscoveredCalendar[]>>;
}

/** Throws TypeError for invalid settings (a programmer error: check them with validateCaldavSettings). */
export function createCaldavConnector(settings: CaldavSettings, deps: CaldavDeps = {}): CaldavConnector {
  const valid = validateCaldavSettings(settings);
  if (!valid.ok)
    throw new TypeError(`invalid CalDAV settings at ${valid.error.field}: ${valid.error.message}`);
  const s = valid.value;
  const timeoutMs = deps.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0)
    throw new TypeError("timeoutMs is a positive number of ms");
  const clock = deps.clock ?? systemClock;
  const server = new URL(s.serverUrl);
  const ctx: CaldavContext = {
    server,
    clock,
    ...(deps.logger === undefined ? {} : { logger: deps.logger }),
    send: createSend({
      server,
      timeoutMs,
      clock,
      ...(deps.fetch === undefined ? {} : { fetch: deps.fetch }),
      ...(deps.logger === undefined ? {} : { logger: deps.logger }),
      ...(deps.onNotice === undefined ? {} : { onNotice: deps.onNotice }),
      ...(s.username === undefined ? {} : { username: s.username }),
      ...(s.password === undefined ? {} : { password: s.password }),
    }),
  };
  const calendar = s.calendarPath === undefined ? undefined : calendarUrl(server, s.calendarPath);
  return {
    platform: CALDAV_PLATFORM,
    kind: "calendar",
    calendar: createCalendarSync(ctx),
    events: createEventWriter(ctx),
    discoverCalendars: () => discoverCalendars(ctx),
    ...(calendar?.ok === true ? { calendarId: calendar.value.pathname } : {}),
  };
}
