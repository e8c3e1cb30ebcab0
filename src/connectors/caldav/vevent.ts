/**
 * A calendar object resource (RFC 4791 §4.1: one UID, a series master and its RECURRENCE-ID
 * overrides) read into the port's RawCalendarEvents, one per VEVENT, recurrence as written.
 *
 * Values are read from ical.js's jCal form (RFC 7265), which keeps each value as the calendar
 * wrote it ("2019-03-04T00:30:00" with its TZID, "…Z" for UTC, "2019-03-04" for a DATE) without
 * resolving zones: a TZID is passed on verbatim (an IANA name, a Windows name such as
 * "W. Europe Standard Time", or a custom one) and src/calendar resolves it.
 *
 * RDATE and EXDATE values come out in the EventTime string forms: "YYYY-MM-DD" for a DATE,
 * "YYYY-MM-DDTHH:MM:SS" in the start's zone (or floating), "…Z" for UTC, and "start/end" or
 * "start/duration" for an RDATE PERIOD. A value written with a TZID other than the start's is
 * converted to UTC with the resource's own VTIMEZONE (when it has none, the value is kept as
 * written, read in the start's zone). RRULE is the parsed rule written back by ical.js: the same
 * rule, its parts in ical.js's order and the default WKST=MO left out. EXRULE (deprecated by RFC 5545) is not read: ignoring it
 * can only add busy time, never lose it. A second RRULE (RFC 5545: SHOULD NOT) is not read either.
 *
 * An ATTENDEE's PARTSTAT=DECLINED does not make an invitation free here (Google and Graph mark
 * the owner's own copy; CalDAV does not): which ATTENDEE is the calendar's owner would need the
 * principal's calendar-user-address-set (RFC 6638 §2.4.1), which the sync does not read, and a
 * guess (the username) could free time the owner is in fact booked for.
 */
import ICAL from "ical.js";
import type { EventTime, RawCalendarEvent } from "../port.js";
import { contentLinesOf, type SkippedLine } from "../../protocol/ical/content-lines.js";
import type { Result } from "../../protocol/result.js";

interface ResourceEvents {
  readonly events: readonly RawCalendarEvent[];
  /** Lines left out as not iCalendar content lines (they carry no time), for the log. */
  readonly skipped?: readonly SkippedLine[];
}

/** The resource's events, or the message saying why it cannot be read. */
export type ReadResource = Result<ResourceEvents, string>;

type JCalProperty = [string, Record<string, unknown>, string, ...unknown[]];

const jcal = (p: ICAL.Property): JCalProperty => p.toJSON() as JCalProperty;

/** ical.js reads "DTSTART:20180110" (a date without VALUE=DATE) as the date-time "2018-01-10T::". */
const MALFORMED_DATE = /^(\d{4}-\d{2}-\d{2})T::$/;

function tzidOf(params: Record<string, unknown>): string | undefined {
  const tzid = params["tzid"];
  return typeof tzid === "string" && tzid !== "" ? tzid : undefined;
}

function eventTime(p: ICAL.Property | null): EventTime | undefined {
  if (p === null) return undefined;
  const [, params, type, value] = jcal(p);
  if (typeof value !== "string") return undefined;
  if (type === "date") return { date: value };
  const malformed = MALFORMED_DATE.exec(value);
  if (malformed?.[1] !== undefined) return { date: malformed[1] };
  if (type !== "date-time") return undefined;
  const zone = tzidOf(params);
  return zone === undefined || value.endsWith("Z") ? { dateTime: value } : { dateTime: value, zone };
}

/** One RDATE/EXDATE value in the start's form (see the module comment). */
function listValue(
  value: unknown,
  tzid: string | undefined,
  startZone: string | undefined,
  zones: Zones,
): string {
  if (Array.isArray(value)) return value.map((v) => listValue(v, tzid, startZone, zones)).join("/");
  const text = String(value);
  const malformed = MALFORMED_DATE.exec(text);
  if (malformed?.[1] !== undefined) return malformed[1];
  if (tzid === undefined || tzid === startZone || !/T\d{2}:\d{2}:\d{2}$/.test(text)) return text;
  const zone = zones.get(tzid);
  if (zone === undefined) return text;
  const local = ICAL.Time.fromDateTimeString(text);
  local.zone = zone;
  return local.convertToZone(ICAL.Timezone.utcTimezone).toString();
}

type Zones = ReadonlyMap<string, ICAL.Timezone>;

function listOf(
  event: ICAL.Component,
  name: "rdate" | "exdate",
  startZone: string | undefined,
  zones: Zones,
): string[] | undefined {
  const values: string[] = [];
  for (const p of event.getAllProperties(name)) {
    const [, params, , ...rest] = jcal(p);
    const tzid = tzidOf(params);
    for (const v of rest) values.push(listValue(v, tzid, startZone, zones));
  }
  return values.length === 0 ? undefined : values;
}

/** SEQUENCE (RFC 5545 §3.8.7.4), when written as a non-negative integer. */
function sequenceOf(event: ICAL.Component): { sequence?: number } {
  const value = event.getFirstPropertyValue("sequence");
  const n = typeof value === "number" ? value : typeof value === "string" ? Number(value) : NaN;
  return Number.isSafeInteger(n) && n >= 0 ? { sequence: n } : {};
}

function textValue(event: ICAL.Component, name: string): string | undefined {
  const p = event.getFirstProperty(name);
  if (p === null) return undefined;
  const [, , , value] = jcal(p);
  return typeof value === "string" ? value : undefined;
}

function statusOf(event: ICAL.Component): RawCalendarEvent["status"] {
  const status = textValue(event, "status")?.toUpperCase();
  return status === "TENTATIVE" ? "tentative" : status === "CANCELLED" ? "cancelled" : "confirmed";
}

function readEvent(
  event: ICAL.Component,
  eventId: string,
  etag: string | undefined,
  zones: Zones,
): RawCalendarEvent {
  const start = eventTime(event.getFirstProperty("dtstart"));
  if (start === undefined) throw new Error("a VEVENT has no readable DTSTART");
  const startZone = "zone" in start ? start.zone : undefined;
  const recurrence = event.getFirstProperty("recurrence-id");
  const recurrenceId = eventTime(recurrence);
  if (recurrence !== null && recurrenceId === undefined) throw new Error("a RECURRENCE-ID is not readable");
  const range = recurrence === null ? undefined : jcal(recurrence)[1]["range"];
  const end = eventTime(event.getFirstProperty("dtend"));
  const durationProp = event.getFirstProperty("duration");
  const duration = durationProp === null ? undefined : String(jcal(durationProp)[3]);
  const rruleProp = event.getFirstProperty("rrule");
  const rrule = rruleProp === null ? undefined : String(rruleProp.getFirstValue());
  const rdate = listOf(event, "rdate", startZone, zones);
  const exdate = listOf(event, "exdate", startZone, zones);
  return {
    uid: textValue(event, "uid") ?? eventId,
    eventId,
    ...(recurrenceId === undefined ? {} : { recurrenceId }),
    ...(typeof range === "string" && range.toUpperCase() === "THISANDFUTURE" ? { thisAndFuture: true } : {}),
    start,
    ...(end === undefined ? {} : { end }),
    ...(end !== undefined || duration === undefined ? {} : { duration }),
    ...(rrule === undefined ? {} : { rrule }),
    ...(rdate === undefined ? {} : { rdate }),
    ...(exdate === undefined ? {} : { exdate }),
    status: statusOf(event),
    ...sequenceOf(event),
    transparency: textValue(event, "transp")?.toUpperCase() === "TRANSPARENT" ? "transparent" : "opaque",
    ...(etag === undefined ? {} : { etag }),
  };
}

/**
 * Every VEVENT of one resource; a resource that cannot be read is reported, never skipped. A
 * byte-order mark and lines that are not content lines (RFC 5545 §3.1) cost only themselves:
 * they are left out (and listed in `skipped`) and the rest is read.
 */
export function readResource(calendarData: string, eventId: string, etag: string | undefined): ReadResource {
  try {
    const content = contentLinesOf(calendarData);
    const calendar = new ICAL.Component(ICAL.parse(content.lines.join("\r\n")) as unknown[]);
    const zones = new Map<string, ICAL.Timezone>();
    for (const vtimezone of calendar.getAllSubcomponents("vtimezone")) {
      const zone = new ICAL.Timezone(vtimezone);
      if (typeof zone.tzid === "string") zones.set(zone.tzid, zone);
    }
    const events = calendar.getAllSubcomponents("vevent").map((e) => readEvent(e, eventId, etag, zones));
    return { ok: true, value: { events, ...(content.skippedCount > 0 && { skipped: content.skipped }) } };
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    return {
      ok: false,
      error: `the calendar object ${JSON.stringify(eventId)} is not readable iCalendar: ${detail}`,
    };
  }
}
