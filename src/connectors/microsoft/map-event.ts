/**
 * A Graph event from a calendarView delta as a RawCalendarEvent.
 *
 * calendarView is Exchange's own expansion of the window: it returns single instances, and
 * the occurrences and exceptions of a series, not the series master (guide "Get incremental
 * changes to events in a calendar view"). So every entry is
 * already one instance, with its own start and end, and maps to a lone event: no RRULE, no
 * RECURRENCE-ID (Graph v1.0 gives each occurrence its own iCalUId, so there is no series uid
 * to tie them by). A moved occurrence is an `exception` at its new time; a deleted one is not
 * in the view (a full sync) or comes as `@removed` (a delta); a meeting its organizer
 * cancelled stays in an attendee's calendar with `isCancelled` and maps to status cancelled.
 * A `seriesMaster` should not appear; if one does it is skipped, since its instances come apart.
 *
 * Times: asked for with Prefer: outlook.timezone="UTC", every dateTime comes as UTC local time
 * ("2026-12-07T08:00:00.0000000", timeZone "UTC"), which becomes the absolute
 * "2026-12-07T08:00:00Z". An all-day event's start and end are dates (midnight as written, not
 * shifted) and become `{ date }`. Should Graph answer another zone anyway, an IANA name (or a
 * Windows name, through windows-iana) keeps the local time with its zone.
 *
 * showAs: free and workingElsewhere are transparent, tentative is a tentative status, busy,
 * oof and unknown are busy. A meeting the mailbox's owner declined is free whatever its showAs:
 * `responseStatus` on the owner's copy is the owner's own answer (resource "event":
 * "Indicates the type of response sent in response to an event message"; "responseStatus":
 * response "declined"), and Outlook can keep a declined meeting in the calendar.
 */
import { findIana } from "windows-iana";
import { isValidTimeZone } from "../../protocol/time/index.js";
import type { EventTime, RawCalendarEvent } from "../port.js";
import { UnreadableEvent } from "../unreadable-event.js";
import type { GraphDateTimeTimeZone, GraphEvent } from "./graph-types.js";

const LOCAL = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}:\d{2})(?:\.\d+)?$/;

function mapTime(t: GraphDateTimeTimeZone | undefined, allDay: boolean, what: string): EventTime {
  const m = t?.dateTime !== undefined ? LOCAL.exec(t.dateTime) : null;
  if (m === null) throw new UnreadableEvent(`${what} is not a Graph dateTime`);
  const [, date = "", time = ""] = m;
  if (allDay) return { date };
  const zone = t?.timeZone ?? "UTC";
  if (zone === "UTC" || zone === "Etc/UTC" || zone === "tzone://Microsoft/Utc")
    return { dateTime: `${date}T${time}Z` };
  const iana = isValidTimeZone(zone) ? zone : findIana(zone)[0];
  if (iana === undefined) throw new UnreadableEvent(`${what} names an unknown time zone`);
  return { dateTime: `${date}T${time}`, zone: iana };
}

/** The version for If-Match: the entity tag Graph sends, else the changeKey as a weak tag. */
export function etagOf(ev: GraphEvent): string | undefined {
  if (ev["@odata.etag"]) return ev["@odata.etag"];
  return ev.changeKey ? `W/"${ev.changeKey}"` : undefined;
}

/** The event, or undefined for an entry that is not an instance (a series master). */
export function mapEvent(ev: GraphEvent): RawCalendarEvent | undefined {
  if (!ev.id) throw new UnreadableEvent("an event has no id");
  if (ev.type === "seriesMaster") return undefined;
  const what = `event ${ev.id}`;
  const allDay = ev.isAllDay === true;
  const start = mapTime(ev.start, allDay, `${what} start`);
  const end = mapTime(ev.end, allDay, `${what} end`);
  const etag = etagOf(ev);
  return {
    uid: ev.iCalUId ?? ev.id,
    eventId: ev.id,
    start,
    end,
    status: ev.isCancelled === true ? "cancelled" : ev.showAs === "tentative" ? "tentative" : "confirmed",
    transparency:
      ev.showAs === "free" || ev.showAs === "workingElsewhere" || ev.responseStatus?.response === "declined"
        ? "transparent"
        : "opaque",
    ...(etag !== undefined && { etag }),
  };
}
