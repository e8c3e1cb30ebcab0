/**
 * The two public entries of recurrence expansion, one engine (expand.ts) behind both:
 * - expandIcs: iCalendar text, RFC 3339 window, RFC 3339 UTC answers;
 * - expandEvents: the connectors' RawCalendarEvents, epoch-ms window and answers.
 *
 * Library choice:
 * - ical.js (v2) reads the text (from-ics.ts: unfolding, escaping, parameters, value types)
 *   and interprets VTIMEZONEs that name no known zone. It does not expand: its RRULE iterator
 *   (2.2.1) turns FREQ=YEARLY from Feb 29 into March 1, misplaces BYWEEKNO and ignores INTERVAL
 *   under FREQ=HOURLY with BYHOUR (rrule.ts), its Event/RecurExpansion exception handling sits
 *   on that iterator, and a TZID without a VTIMEZONE in the file (even "Europe/Berlin") becomes
 *   a floating time there, where we want IANA and Windows names read by their rules.
 * - rrule (dev only): no RECURRENCE-ID, open EXDATE and time-zone bugs; it is the independent
 *   reading the property test compares our RRULE expansion with.
 * - The RRULE expansion is ours (rrule.ts), small and property-tested; Temporal
 *   (temporal-polyfill, through src/protocol/time) does the zone arithmetic; windows-iana
 *   (CLDR's table) maps Windows zone names.
 */
import { canonicalIana, ianaZone, UTC, ZoneResolver, type Zone } from "./zones.js";
import { expandComponents, type Occurrence } from "./expand.js";
import { parseIcs, type Warn } from "./from-ics.js";
import { fromRaw } from "./from-raw.js";
import type { Component, EventStatus } from "./model.js";
import type { RawCalendarEvent } from "../raw-event.js";
import type { Logger } from "../../protocol/logger.js";
import { formatInstant, parseInstant } from "../../protocol/time/index.js";

/** Occurrences one series may yield in a window before the answer is incomplete. */
const DEFAULT_MAX_PER_SERIES = 1_000;
/** Occurrences one call may yield (a whole calendar's sync) before the answer is incomplete. */
const DEFAULT_MAX_TOTAL = 50_000;

/**
 * Where expansion reports what it skipped (a line, a value, an event, a series): the warn of
 * the gateway's Logger. Without one nothing is reported, and `complete: false` still says that
 * something was skipped.
 */
const warnOf = (logger: Pick<Logger, "warn"> | undefined): Warn | undefined =>
  logger === undefined ? undefined : (message, fields) => logger.warn(message, fields);

interface IcsOccurrence {
  readonly uid: string;
  /** RFC 3339 instants in UTC ("2020-01-28T21:00:00Z"); end exclusive. */
  readonly start: string;
  readonly end: string;
  /** A DATE occurrence: start and end are midnights in the floating zone. */
  readonly allDay: boolean;
  /** For an instance of a series: its original start (RFC 3339 UTC), also when it was moved. */
  readonly recurrenceId?: string;
  /** STATUS as written: "TENTATIVE" | "CONFIRMED" | "CANCELLED", or null when absent. */
  readonly status: EventStatus;
  /** TRANSP:TRANSPARENT (shown as free). */
  readonly transparent: boolean;
}

export interface IcsExpansion {
  /** Sorted by start; cancelled ones included (status "CANCELLED"): busyIntervals drops them. */
  readonly occurrences: IcsOccurrence[];
  /** False when a bound was reached or something could not be read; the occurrences are then a prefix. */
  readonly complete: boolean;
  /** TZIDs that name no known zone and no VTIMEZONE: their times were read in the floating zone. */
  readonly unknownZones: string[];
}

export interface EventOccurrence {
  readonly uid: string;
  readonly eventId: string;
  /** Epoch ms, end exclusive. */
  readonly start: number;
  readonly end: number;
  readonly allDay: boolean;
  readonly recurrenceId?: number;
  /** As IcsOccurrence.status ("CONFIRMED" when the connector said confirmed). */
  readonly status: EventStatus;
  readonly transparent: boolean;
}

export interface EventsExpansion {
  readonly occurrences: EventOccurrence[];
  readonly complete: boolean;
  /** A bound cut the answer here: occurrences starting earlier are all there (expand.ts). */
  readonly truncatedAt?: number;
  /** Each series its per-series bound cut, by UID, with where (expand.ts). */
  readonly cut?: ReadonlyMap<string, number>;
  /**
   * What was left out because it could not be read or expanded: events, by UID, and how many
   * of each (a series that cannot be expanded counts once). Logged through `logger` too.
   */
  readonly skipped?: ReadonlyMap<string, number>;
  readonly unknownZones: string[];
}

function floatingZone(name: string | undefined): Zone {
  if (name === undefined) return UTC;
  const id = typeof name === "string" ? canonicalIana(name) : undefined;
  if (id === undefined)
    throw new RangeError(`floatingZone: ${JSON.stringify(name)} is not an IANA time zone`);
  return id === "UTC" ? UTC : ianaZone(id);
}

function bound(value: number | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 1)
    throw new RangeError(`${name} must be a positive integer, got ${value}`);
  return value;
}

function window(from: number, to: number): void {
  if (!Number.isSafeInteger(from) || !Number.isSafeInteger(to))
    throw new TypeError(`from and to must be integer epoch milliseconds, got ${from} and ${to}`);
  if (from >= to) throw new RangeError(`from must be before to (from ${from}, to ${to})`);
}

/** RFC 3339 in UTC, whole seconds unless there are milliseconds (as formatInstant, faster). */
const iso = (ms: number): string => {
  const text = new Date(ms).toISOString();
  return text.length === 24 ? text.replace(".000Z", "Z") : formatInstant(ms);
};

/**
 * Expands an iCalendar text over [from, to): the occurrences that start before `to` and end
 * after `from` (a zero-length one when it starts in the window), sorted by start. Floating
 * times and all-day dates are read in `floatingZone` (default UTC).
 * Throws TypeError for text that is not iCalendar and for instants that are not RFC 3339 with
 * an offset; RangeError when from ≥ to, for an unknown floatingZone or a bad maxPerSeries.
 */
export function expandIcs(
  text: string,
  options: {
    from: string;
    to: string;
    floatingZone?: string;
    maxPerSeries?: number;
    logger?: Pick<Logger, "warn">;
  },
): IcsExpansion {
  const from = parseInstant(options.from, "from");
  if (!from.ok) throw new TypeError(`from: ${from.error.message}`);
  const to = parseInstant(options.to, "to");
  if (!to.ok) throw new TypeError(`to: ${to.error.message}`);
  if (from.value.epochMs >= to.value.epochMs)
    throw new RangeError(`from (${options.from}) must be before to (${options.to})`);
  const floating = floatingZone(options.floatingZone);
  const maxPerSeries = bound(options.maxPerSeries, "maxPerSeries", DEFAULT_MAX_PER_SERIES);
  const warn = warnOf(options.logger);
  const parsed = parseIcs(text, floating, warn);
  const r = expandComponents(parsed.components, {
    from: from.value.epochMs,
    to: to.value.epochMs,
    floating,
    maxPerSeries,
    maxTotal: DEFAULT_MAX_TOTAL,
    ...(warn !== undefined && { warn }),
  });
  return {
    occurrences: r.occurrences.map((o) => ({
      uid: o.uid,
      start: iso(o.start),
      end: iso(o.end),
      allDay: o.allDay,
      ...(o.recurrenceId !== undefined && { recurrenceId: iso(o.recurrenceId) }),
      status: o.status,
      transparent: o.transparent,
    })),
    complete: r.complete && parsed.complete,
    unknownZones: [...parsed.resolver.unknown],
  };
}

/**
 * Expands connector events (a series and its exceptions share a uid) over [from, to), epoch
 * ms; the same engine and rules as expandIcs. An event whose values cannot be read is left out
 * and makes the answer incomplete. Throws for bad options as expandIcs does.
 */
export function expandEvents(
  events: readonly RawCalendarEvent[],
  options: {
    from: number;
    to: number;
    floatingZone?: string;
    maxPerSeries?: number;
    maxTotal?: number;
    logger?: Pick<Logger, "warn">;
  },
): EventsExpansion {
  window(options.from, options.to);
  const warn = warnOf(options.logger);
  const floating = floatingZone(options.floatingZone);
  const resolver = new ZoneResolver(floating);
  const components: Component[] = [];
  let readAll = true;
  const skipped = new Map<string, number>();
  for (const e of events) {
    try {
      components.push(fromRaw(e, resolver));
    } catch (err) {
      readAll = false;
      skipped.set(e.uid, (skipped.get(e.uid) ?? 0) + 1);
      warn?.("calendar: an event cannot be read; it is skipped", {
        uid: e.uid,
        event_id: e.eventId,
        error: err instanceof Error ? err.message : String(err),
      });
    }
  }
  const r = expandComponents(components, {
    from: options.from,
    to: options.to,
    floating,
    maxPerSeries: bound(options.maxPerSeries, "maxPerSeries", DEFAULT_MAX_PER_SERIES),
    maxTotal: bound(options.maxTotal, "maxTotal", DEFAULT_MAX_TOTAL),
    ...(warn !== undefined && { warn }),
  });
  for (const uid of r.skipped ?? []) skipped.set(uid, (skipped.get(uid) ?? 0) + 1);
  return {
    occurrences: r.occurrences.map((o: Occurrence) => ({ ...o })),
    complete: r.complete && readAll,
    ...(r.truncatedAt !== undefined && { truncatedAt: r.truncatedAt }),
    ...(r.cut !== undefined && { cut: r.cut }),
    ...(skipped.size > 0 && { skipped }),
    unknownZones: [...resolver.unknown],
  };
}
