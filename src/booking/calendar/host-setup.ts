/**
 * A configured calendar host made a booking host: its `calendar` section read,
 * the calendars it syncs chosen (the section's, else the connector's own, else the one that
 * calendar discovery finds, as the console's Connect lists them), and the calendar connector
 * wrapped as the core's platform path (host-connector.ts). The handle is what the runtime needs
 * to schedule its syncs and tell its approver.
 */
import type { CalendarConnector, Connector } from "../../connectors/port.js";
import type { HoldStore } from "../../holds/port.js";
import { err, fieldError, ok, type FieldError, type Result } from "../../protocol/result.js";
import type { HostConfig } from "../api.js";
import { parseCalendarSection, type CalendarSection } from "./config.js";
import { calendarHostConnector, type CalendarHostSetup, type TentativeRequest } from "./host-connector.js";
import type { OwnEventDeps } from "./own-events.js";
import type { CalendarStateStore, OwnEvent } from "./state.js";
import type { CalendarHostPlan } from "./sync.js";
import type { Clock } from "../../protocol/clock.js";

export interface CalendarHostHandle {
  readonly hostId: string;
  readonly plan: CalendarHostPlan;
  readonly section: CalendarSection;
  /** The raw calendar connector (sync and event writes). */
  readonly calendar: CalendarConnector;
  readonly own: OwnEventDeps;
}

/** The calendar a connector reads when the host names none ("primary" for Google/Graph). */
export function defaultCalendarOf(connector: Connector): string | undefined {
  const own = (connector as { calendarId?: unknown }).calendarId;
  if (typeof own === "string") return own;
  if (connector.platform.vendor === "ics-dir") return "local";
  // The vendors as the connectors name themselves (google/platform.ts, microsoft/platform.ts).
  if (connector.platform.vendor === "google-calendar" || connector.platform.vendor === "microsoft-graph")
    return "primary";
  return undefined;
}

/** A connector that can list the account's calendars (CalDAV: connectors/caldav/discover.ts). */
interface Discovers {
  discoverCalendars(): Promise<
    Result<
      ReadonlyArray<{ calendarId: string; components: readonly string[] }>,
      { readonly code: string; readonly message: string }
    >
  >;
}

const discovers = (c: unknown): c is Discovers =>
  typeof (c as Partial<Discovers> | null)?.discoverCalendars === "function";

/**
 * The calendar of a host that names none and whose connector has no default (CalDAV without
 * calendarPath): discovery's calendars that take events, when there is exactly one. With
 * several the gateway cannot guess where bookings belong, so the owner names one; a failed
 * discovery is reported, so the host is not started on a calendar nobody chose.
 */
async function discoveredCalendar(connector: Discovers, field: string): Promise<Result<string, FieldError>> {
  const found = await connector.discoverCalendars();
  if (!found.ok)
    return err(
      fieldError(
        "invalid_value",
        field,
        `${field}: no calendar is named and discovering one failed (${found.error.code}: ${found.error.message}); ` +
          "name it (the connector's calendarPath) or check the server",
      ),
    );
  const events = found.value.filter((c) => c.components.length === 0 || c.components.includes("VEVENT"));
  const [only] = events;
  if (only !== undefined && events.length === 1) return ok(only.calendarId);
  return err(
    fieldError(
      "invalid_value",
      field,
      events.length === 0
        ? `${field}: discovery found no calendar that takes events on this account`
        : `${field}: discovery found ${events.length} calendars (${events.map((c) => c.calendarId).join(", ")}); ` +
            "name the one to book into (the connector's calendarPath)",
    ),
  );
}

export async function calendarHostFrom(
  config: HostConfig,
  at: string,
  connector: CalendarConnector,
  deps: {
    readonly store: HoldStore;
    readonly state: CalendarStateStore;
    readonly clock: Clock;
    readonly onTentative?: (hostId: string, event: OwnEvent, request: TentativeRequest) => void;
  },
): Promise<Result<{ connector: Connector; handle: CalendarHostHandle }, FieldError>> {
  const section = parseCalendarSection(config.calendar, `${at}/calendar`);
  if (!section.ok) return section;
  let fallback = defaultCalendarOf(connector);
  if (section.value.calendars === undefined && fallback === undefined && discovers(connector)) {
    const found = await discoveredCalendar(connector, `${at}/connector/settings/calendarPath`);
    if (!found.ok) return found;
    fallback = found.value;
  }
  const calendars = section.value.calendars ?? (fallback === undefined ? [] : [{ calendarId: fallback }]);
  if (calendars.length === 0) {
    const field = `${at}/calendar/calendars`;
    return err(
      fieldError(
        "invalid_value",
        field,
        `${field}: name the calendar to sync (the connector has no default)`,
      ),
    );
  }
  const plan: CalendarHostPlan = {
    hostId: config.id,
    timezone: config.timezone,
    units: section.value.units,
    calendars,
    horizonMs: config.policies.horizonMs,
  };
  const writeCalendarId = section.value.writeCalendar ?? (calendars[0] as { calendarId: string }).calendarId;
  const currency = section.value.services.find((s) => s.price !== undefined)?.price?.currency;
  const setup: CalendarHostSetup = {
    plan,
    writeCalendarId,
    organization: {
      id: config.id,
      name: config.name,
      timezone: config.timezone,
      ...(currency !== undefined && { currency }),
    },
    services: section.value.services,
    hours: section.value.hours,
    granularityMs: section.value.granularityMs,
  };
  const own: OwnEventDeps = {
    events: connector.events,
    state: deps.state,
    clock: deps.clock,
    hostId: config.id,
    zone: config.timezone,
    writeCalendarId,
  };
  return ok({
    connector: calendarHostConnector(connector, setup, {
      store: deps.store,
      state: deps.state,
      clock: deps.clock,
      ...(deps.onTentative !== undefined && {
        onTentative: (e: OwnEvent, request: TentativeRequest) => deps.onTentative?.(config.id, e, request),
      }),
    }),
    handle: { hostId: config.id, plan, section: section.value, calendar: connector, own },
  });
}
