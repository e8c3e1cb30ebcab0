/**
 * A calendar event as its calendar stores it, recurrence NOT expanded: what the calendar sync
 * port (src/connectors/ports/calendar-sync.ts, which re-exports these) returns and what
 * expandEvents (recurrence/expand-events.ts) expands. Google's and Microsoft's JSON map onto
 * these fields, CalDAV's VEVENTs are them (RFC 5545).
 */

/**
 * A start or end as the calendar wrote it:
 * - `{ date }`: an all-day value, "YYYY-MM-DD" (VALUE=DATE); the end date is exclusive;
 * - `{ dateTime, zone }`: a local "YYYY-MM-DDTHH:MM:SS" in a zone (TZID): an IANA name, a
 *   Windows name (Microsoft), else read in the floating zone and reported (recurrence/zones.ts);
 * - `{ dateTime }` without a zone: a floating time when it has no offset ("…T09:00:00"), read
 *   in the host's zone; an absolute time when it ends in "Z" or an offset.
 */
export type EventTime = { readonly date: string } | { readonly dateTime: string; readonly zone?: string };

export interface RawCalendarEvent {
  /** iCalendar UID (Google iCalUID, Microsoft iCalUId): shared by a series and its exceptions. */
  readonly uid: string;
  /** The upstream's own id of this event or exception, for event writes and deletes. */
  readonly eventId: string;
  /**
   * Set on an exception of a series (a moved or cancelled instance): the original start of
   * the instance it replaces, in the series' form.
   */
  readonly recurrenceId?: EventTime;
  /** RECURRENCE-ID;RANGE=THISANDFUTURE: the exception applies to this and later instances. */
  readonly thisAndFuture?: boolean;
  readonly start: EventTime;
  /** DTEND (exclusive); absent: `duration`, else the RFC 5545 default (a day, or zero). */
  readonly end?: EventTime;
  /** RFC 5545 DURATION ("PT1H30M"), when the calendar states one instead of an end. */
  readonly duration?: string;
  /** RRULE value as written ("FREQ=WEEKLY;BYDAY=MO,WE;UNTIL=20261231T235959Z"). */
  readonly rrule?: string;
  /**
   * RDATE values as written, in the start's form and zone unless they carry Z or an offset
   * ("20260310T090000", "…/PT1H" for a PERIOD); whole content lines ("RDATE;TZID=…:…") work too.
   */
  readonly rdate?: readonly string[];
  /** EXDATE values, read as `rdate` is. */
  readonly exdate?: readonly string[];
  /** STATUS; a cancelled exception removes its instance. */
  readonly status: "tentative" | "confirmed" | "cancelled";
  /** TRANSP: only opaque events are busy time. */
  readonly transparency: "opaque" | "transparent";
  /**
   * SEQUENCE (RFC 5545 §3.8.7.4), when the calendar states it: of two copies of a series (or of
   * one override) under one uid, the higher supersedes the lower.
   */
  readonly sequence?: number;
  /** The version the upstream holds (ETag, Google etag, Microsoft changeKey). */
  readonly etag?: string;
}
