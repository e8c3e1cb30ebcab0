/**
 * The iCalendar object of one of the gateway's own events (RFC 5545, built with ical.js): one
 * VEVENT whose UID is the client-chosen eventId, STATUS TENTATIVE (a booking waiting for host
 * approval), CONFIRMED or CANCELLED, and TRANSP.
 *
 * Start and end are written in UTC. A local DTSTART;TZID=… needs a VTIMEZONE in the same object
 * (RFC 5545 §3.2.19), which would have to be generated from the IANA database; UTC is exact
 * for a single event and every client shows it in its own zone. The event's zone is kept as
 * X-BOOKING-ZONE for people reading the raw object.
 */
import ICAL from "ical.js";
import type { CalendarEventWrite } from "../port.js";

const PRODID = "-//booking-gateway//CalDAV connector//EN";

const utc = (ms: number): ICAL.Time => ICAL.Time.fromJSDate(new Date(ms), true);

export function buildEvent(event: CalendarEventWrite, now: number): string {
  const calendar = new ICAL.Component(["vcalendar", [], []]);
  calendar.updatePropertyWithValue("prodid", PRODID);
  calendar.updatePropertyWithValue("version", "2.0");
  const vevent = new ICAL.Component("vevent");
  vevent.updatePropertyWithValue("uid", event.eventId);
  vevent.updatePropertyWithValue("dtstamp", utc(now));
  vevent.updatePropertyWithValue("last-modified", utc(now));
  vevent.updatePropertyWithValue("dtstart", utc(event.start));
  vevent.updatePropertyWithValue("dtend", utc(event.end));
  vevent.updatePropertyWithValue("summary", event.summary);
  if (event.description !== undefined) vevent.updatePropertyWithValue("description", event.description);
  vevent.updatePropertyWithValue("status", event.status.toUpperCase());
  vevent.updatePropertyWithValue("transp", event.transparency.toUpperCase());
  vevent.updatePropertyWithValue("x-booking-zone", event.zone);
  calendar.addSubcomponent(vevent);
  return calendar.toString();
}
