/**
 * A Google event (Calendar API v3 Events resource) as a RawCalendarEvent, recurrence NOT
 * expanded (src/calendar does that):
 *
 * - a series: `recurrence` lines as written, "RRULE:…", "EXDATE…:…", "RDATE…:…"; the RRULE
 *   value is kept verbatim, EXDATE/RDATE values in the start's form and zone (the port's rule):
 *   values already in it stay as written, values in another TZID or in UTC are converted to
 *   the start zone's local time (the same instant);
 * - an exception (a moved or changed instance): `recurringEventId` + `originalStartTime`,
 *   which becomes `recurrenceId`, in the series' form (Google writes it in the series' zone);
 * - a cancelled exception: `status: "cancelled"` with only id, recurringEventId and
 *   originalStartTime, so its start IS its original start (mapCancelledInstance);
 * - times: `{ date }` stays all-day; `{ dateTime, timeZone }` becomes the local time in that
 *   IANA zone (Google writes the dateTime with the offset of the calendar's or the request's
 *   zone, not necessarily the event's); a dateTime without timeZone stays absolute as written.
 * - transparency "transparent" and working-location entries are free; so is an invitation the
 *   calendar's owner declined: the attendee marked `self` ("this entry represents the calendar
 *   on which this copy of the event appears", Events resource) with responseStatus "declined".
 *   All else is busy.
 */
import type { calendar_v3 } from "@googleapis/calendar";
import {
  formatWallClock,
  instantToWallClock,
  isValidTimeZone,
  parseInstant,
  wallClockToInstant,
  type WallClock,
} from "../../protocol/time/index.js";
import type { EventTime, RawCalendarEvent } from "../port.js";
import { UnreadableEvent } from "../unreadable-event.js";

type GoogleTime = calendar_v3.Schema$EventDateTime;

function mapTime(t: GoogleTime | undefined, what: string): EventTime {
  if (t?.date) return { date: t.date };
  if (!t?.dateTime) throw new UnreadableEvent(`${what} has neither date nor dateTime`);
  const zone = t.timeZone ?? undefined;
  if (zone === undefined) return { dateTime: t.dateTime };
  if (!isValidTimeZone(zone)) throw new UnreadableEvent(`${what} names an unknown time zone`);
  const instant = parseInstant(t.dateTime, what);
  if (!instant.ok) {
    // Already local (no offset): it is the zone's wall-clock as written.
    if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/.test(t.dateTime)) return { dateTime: t.dateTime, zone };
    throw new UnreadableEvent(`${what} is not an RFC 3339 date-time`);
  }
  return { dateTime: formatWallClock(trimMs(instantToWallClock(instant.value.epochMs, zone))), zone };
}

const trimMs = (w: WallClock): WallClock => ({ ...w, millisecond: 0 });

/** iCalendar basic form "YYYYMMDDTHHMMSS" of a wall-clock. */
function basic(w: WallClock): string {
  return formatWallClock(trimMs(w)).replace(/[-:]/g, "");
}

const BASIC = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})(Z?)$/;

/** One EXDATE/RDATE value moved into the start's zone; dates and periods stay as written. */
function intoZone(value: string, from: string | undefined, zone: string | undefined): string {
  const m = BASIC.exec(value);
  if (m === null || zone === undefined) return value;
  const utc = m[7] === "Z";
  if (!utc && (from === undefined || from === zone)) return value;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const wall: WallClock = { year, month, day, hour, minute, second, millisecond: 0 };
  const source = utc ? "UTC" : (from ?? zone);
  const at = wallClockToInstant(wall, source);
  if (!at.ok) throw new UnreadableEvent(`a recurrence date names ${JSON.stringify(source)}`);
  return basic(instantToWallClock(at.value, zone));
}

interface Recurrence {
  rrule?: string;
  rdate?: string[];
  exdate?: string[];
}

/** Splits "NAME;PARAMS:VALUES" lines; unknown properties (EXRULE is obsolete) are refused. */
function readRecurrence(lines: readonly string[], start: EventTime): Recurrence {
  const zone = "zone" in start ? start.zone : undefined;
  const out: Recurrence = {};
  for (const line of lines) {
    const colon = line.indexOf(":");
    if (colon < 0) throw new UnreadableEvent("a recurrence line has no value");
    const [name = "", ...params] = line.slice(0, colon).split(";");
    const value = line.slice(colon + 1);
    const tzid = params.find((p) => p.toUpperCase().startsWith("TZID="))?.slice(5);
    const values = value.split(",").map((v) => intoZone(v, tzid, zone));
    switch (name.toUpperCase()) {
      case "RRULE":
        if (out.rrule !== undefined) throw new UnreadableEvent("a series has more than one RRULE");
        out.rrule = value;
        break;
      case "RDATE":
        (out.rdate ??= []).push(...values);
        break;
      case "EXDATE":
        (out.exdate ??= []).push(...values);
        break;
      default:
        throw new UnreadableEvent(`a recurrence line ${JSON.stringify(name)} cannot be read`);
    }
  }
  return out;
}

export function mapEvent(ev: calendar_v3.Schema$Event, uid: string): RawCalendarEvent {
  const id = ev.id;
  if (!id) throw new UnreadableEvent("an event has no id");
  const what = `event ${id}`;
  const start = mapTime(ev.start, `${what} start`);
  const end = ev.end ? mapTime(ev.end, `${what} end`) : undefined;
  const recurrence = ev.recurrence ? readRecurrence(ev.recurrence, start) : {};
  const recurrenceId =
    ev.recurringEventId && ev.originalStartTime
      ? mapTime(ev.originalStartTime, `${what} originalStartTime`)
      : undefined;
  const declined = ev.attendees?.some((a) => a.self === true && a.responseStatus === "declined") === true;
  const free = ev.transparency === "transparent" || ev.eventType === "workingLocation" || declined;
  return {
    uid,
    eventId: id,
    start,
    ...(end !== undefined && { end }),
    ...(recurrenceId !== undefined && { recurrenceId }),
    ...(recurrence.rrule !== undefined && { rrule: recurrence.rrule }),
    ...(recurrence.rdate !== undefined && { rdate: recurrence.rdate }),
    ...(recurrence.exdate !== undefined && { exdate: recurrence.exdate }),
    status: ev.status === "tentative" ? "tentative" : "confirmed",
    transparency: free ? "transparent" : "opaque",
    // Event.sequence: "Sequence number as per iCalendar" (Calendar API v3 Events resource).
    ...(typeof ev.sequence === "number" &&
      Number.isSafeInteger(ev.sequence) &&
      ev.sequence >= 0 && {
        sequence: ev.sequence,
      }),
    ...(ev.etag && { etag: ev.etag }),
  };
}

/**
 * A cancelled instance of a series (Google sends id, recurringEventId, originalStartTime and
 * status only): a cancelled exception whose start is the instance it removes.
 */
export function mapCancelledInstance(ev: calendar_v3.Schema$Event, uid: string): RawCalendarEvent {
  const id = ev.id;
  if (!id || !ev.originalStartTime)
    throw new UnreadableEvent("a cancelled instance has no id or original start");
  const original = mapTime(ev.originalStartTime, `event ${id} originalStartTime`);
  return {
    uid,
    eventId: id,
    recurrenceId: original,
    start: original,
    status: "cancelled",
    transparency: "opaque",
    ...(ev.etag && { etag: ev.etag }),
  };
}
