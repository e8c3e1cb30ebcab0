/**
 * A rewrite of one of the gateway's own events applied to the calendar object as it now stands
 * (RFC 5545, modified in place with ical.js), for an update whose If-Match failed because someone
 * else edited the event since (RFC 9110 §13.1.1: the lost update If-Match exists to prevent).
 *
 * Only what the booking owns is set: DTSTART and DTEND (written in UTC, as build-event.ts
 * does; a DURATION goes, since DTEND replaces it), STATUS, TRANSP and X-BOOKING-ZONE, with
 * DTSTAMP and LAST-MODIFIED; SEQUENCE goes up by one when the times or the status change
 * (RFC 5545 §3.8.7.4). Everything else stays exactly as the other writer left it: SUMMARY,
 * DESCRIPTION, LOCATION, COMMENT, ATTENDEE, X- properties, every parameter, VALARMs, other
 * components. The VEVENT changed is the one whose UID is the event's and that has no
 * RECURRENCE-ID (the gateway writes single events; an override someone added is left alone).
 */
import ICAL from "ical.js";
import type { CalendarEventWrite } from "../port.js";
import type { Result } from "../../protocol/result.js";

/** The rewritten calendar object, or why the one on the server could not be rewritten. */
export type Merged = Result<string, string>;

const utc = (ms: number): ICAL.Time => ICAL.Time.fromJSDate(new Date(ms), true);

/** Replaces a property whole (its old parameters, such as a TZID, would misread the new value). */
function replace(vevent: ICAL.Component, name: string, value: string | ICAL.Time): void {
  vevent.removeAllProperties(name);
  vevent.addPropertyWithValue(name, value);
}

const valueOf = (vevent: ICAL.Component, name: string): string | undefined => {
  const p = vevent.getFirstProperty(name);
  return p === null ? undefined : String(p.getFirstValue());
};

/** Unix ms of a DTSTART/DTEND written in UTC; undefined for any other form (read as changed). */
function instantOf(vevent: ICAL.Component, name: string): number | undefined {
  const value = vevent.getFirstProperty(name)?.getFirstValue();
  return value instanceof ICAL.Time && value.zone === ICAL.Timezone.utcTimezone
    ? value.toUnixTime() * 1000
    : undefined;
}

function ownMaster(calendar: ICAL.Component, uid: string): ICAL.Component | undefined {
  return calendar
    .getAllSubcomponents("vevent")
    .find((v) => valueOf(v, "uid") === uid && v.getFirstProperty("recurrence-id") === null);
}

export function mergeOwnedInto(current: string, event: CalendarEventWrite, now: number): Merged {
  let calendar: ICAL.Component;
  try {
    calendar = new ICAL.Component(ICAL.parse(current) as unknown[]);
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    return { ok: false, error: `the event on the server is not readable iCalendar: ${detail}` };
  }
  const vevent = ownMaster(calendar, event.eventId);
  if (vevent === undefined)
    return { ok: false, error: `the event on the server has no VEVENT with UID ${event.eventId}` };

  const status = event.status.toUpperCase();
  const changed =
    instantOf(vevent, "dtstart") !== event.start ||
    instantOf(vevent, "dtend") !== event.end ||
    valueOf(vevent, "status")?.toUpperCase() !== status;
  replace(vevent, "dtstart", utc(event.start));
  vevent.removeAllProperties("duration");
  replace(vevent, "dtend", utc(event.end));
  replace(vevent, "status", status);
  replace(vevent, "transp", event.transparency.toUpperCase());
  replace(vevent, "x-booking-zone", event.zone);
  replace(vevent, "dtstamp", utc(now));
  replace(vevent, "last-modified", utc(now));
  if (changed) {
    const sequence = Number(valueOf(vevent, "sequence") ?? "0");
    vevent.updatePropertyWithValue("sequence", Number.isSafeInteger(sequence) ? sequence + 1 : 1);
  }
  return { ok: true, value: calendar.toString() };
}
