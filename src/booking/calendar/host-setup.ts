/**
 * A configured calendar host made a booking host (issue #11): its `calendar` section read,
 * the calendars it syncs chosen (the section's, else the connector's own), and the calendar
 * connector wrapped as the core's platform path (host-connector.ts). The handle is what the
 * runtime needs to schedule its syncs and tell its approver.
 */
import type { CalendarConnector, Connector } from "../../connectors/port.js";
import type { HoldStore } from "../../holds/port.js";
import { err, fieldError, ok, type FieldError, type Result } from "../../protocol/result.js";
import type { HostConfig } from "../api.js";
import { parseCalendarSection, type CalendarSection } from "./config.js";
import { calendarHostConnector, type CalendarHostSetup } from "./host-connector.js";
import type { OwnEventDeps } from "./own-events.js";
import type { CalendarStateStore, OwnEvent } from "./state.js";
import type { CalendarHostPlan } from "./sync.js";

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

export function calendarHostFrom(
  config: HostConfig,
  at: string,
  connector: CalendarConnector,
  deps: {
    readonly store: HoldStore;
    readonly state: CalendarStateStore;
    readonly now: () => number;
    readonly onTentative?: (hostId: string, event: OwnEvent) => void;
  },
): Result<{ connector: Connector; handle: CalendarHostHandle }, FieldError> {
  const section = parseCalendarSection(config.calendar, `${at}/calendar`);
  if (!section.ok) return section;
  const fallback = defaultCalendarOf(connector);
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
    now: deps.now,
    hostId: config.id,
    zone: config.timezone,
    writeCalendarId,
  };
  return ok({
    connector: calendarHostConnector(connector, setup, {
      store: deps.store,
      state: deps.state,
      now: deps.now,
      ...(deps.onTentative !== undefined && {
        onTentative: (e: OwnEvent) => deps.onTentative?.(config.id, e),
      }),
    }),
    handle: { hostId: config.id, plan, section: section.value, calendar: connector, own },
  });
}
