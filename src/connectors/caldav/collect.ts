/**
 * The VEVENTs of a Multi-Status's calendar object resources, by eventId (RFC 4791 §9.6
 * calendar-data). Runs in the parse worker (parse-worker.ts): iCalendar parsing is linear for
 * ordinary data but not for every hostile input, so it never runs on the event loop.
 */
import type { RawCalendarEvent } from "../port.js";
import type { DavResource } from "./dav.js";
import { eventIdOf, isCollection } from "./resources.js";
import { readResource } from "./vevent.js";

export interface Collected {
  readonly events: ReadonlyArray<readonly [string, readonly RawCalendarEvent[]]>;
  /** The message of the first resource that could not be read (the sync then fails). */
  readonly problem?: string;
  /** Lines left out of resources as not content lines (they carry no time): for the log. */
  readonly skipped?: readonly SkippedIn[];
}

/** A line left out of one resource (vevent.ts readResource). */
export interface SkippedIn {
  readonly eventId: string;
  readonly line: number;
  readonly text: string;
}

/** At most this many skipped lines are carried back per answer (the log needs a sample). */
const MAX_SKIPPED = 20;

/** Adds a resource's skipped lines to `into`, up to MAX_SKIPPED. */
export function noteSkipped(
  into: SkippedIn[],
  eventId: string,
  skipped: readonly { line: number; text: string }[] | undefined,
): void {
  for (const s of skipped ?? []) if (into.length < MAX_SKIPPED) into.push({ eventId, ...s });
}

export function collectResources(calendar: URL, resources: readonly DavResource[]): Collected {
  const events: Array<readonly [string, readonly RawCalendarEvent[]]> = [];
  const skipped: SkippedIn[] = [];
  for (const r of resources) {
    if (r.status < 200 || r.status >= 300 || isCollection(calendar, r.href)) continue;
    const eventId = eventIdOf(calendar, r.href);
    if (r.calendarData === undefined)
      return { events, problem: `the server sent no calendar data for ${JSON.stringify(eventId)}` };
    const read = readResource(r.calendarData, eventId, r.etag);
    if (!read.ok) return { events, problem: read.error };
    noteSkipped(skipped, eventId, read.value.skipped);
    events.push([eventId, read.value.events]);
  }
  return { events, ...(skipped.length > 0 && { skipped }) };
}
