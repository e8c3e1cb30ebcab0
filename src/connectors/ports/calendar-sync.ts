/**
 * The calendar sync capability (Google, Microsoft 365, CalDAV; no implementation yet): the
 * calendar's events as it stores them, recurrence NOT expanded, read incrementally.
 *
 * The connector only translates; src/calendar expands recurrences (EXDATE, RDATE, moved and
 * cancelled RECURRENCE-ID instances, RANGE=THISANDFUTURE, all-day, floating times, DST) and a
 * sync job turns the result into busy time in the hold store (DESIGN.md "Calendar-fallback
 * hosts"). So an event carries its recurrence data as the calendar wrote it, iCalendar-style
 * (RFC 5545): Google's and Microsoft's JSON map onto these fields, CalDAV's VEVENTs are them.
 *
 * Protocol of a sync:
 * - No cursor: a full sync of `window`. With a cursor: the changes since it (Google syncToken,
 *   Microsoft deltaLink, CalDAV sync-token / ctag + etags).
 * - Pages: `complete: false` means more pages follow; call again with `nextCursor`. The last
 *   page (`complete: true`) carries the cursor for the next incremental sync.
 * - `readUntil`: the instant up to which the calendar was read in full; nothing after it may be
 *   offered (times past it are availability_unknown).
 * - A cursor the upstream refuses (Google 410 Gone, an expired delta link, CalDAV
 *   valid-sync-token) is the error `cursor_expired`: the caller drops what it synced from that
 *   cursor's lineage and restarts with a full sync. It is never retried as is.
 * - A sync that stopped part way (an error on a later page) is incomplete: the caller keeps the
 *   busy time it had (§10).
 */
import type { Interval } from "../../calendar/index.js";
import type { ConnectorErrorCode, ConnectorResult } from "./result.js";

/**
 * A start or end as the calendar wrote it:
 * - `{ date }`: an all-day value, "YYYY-MM-DD" (VALUE=DATE); the end date is exclusive;
 * - `{ dateTime, zone }`: a local "YYYY-MM-DDTHH:MM:SS" in an IANA zone (TZID);
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
  /** RDATE values as written, in the start's form and zone. */
  readonly rdate?: readonly string[];
  /** EXDATE values as written, in the start's form and zone. */
  readonly exdate?: readonly string[];
  /** STATUS; a cancelled exception removes its instance. */
  readonly status: "tentative" | "confirmed" | "cancelled";
  /** TRANSP: only opaque events are busy time. */
  readonly transparency: "opaque" | "transparent";
  /** The version the upstream holds (ETag, Google etag, Microsoft changeKey). */
  readonly etag?: string;
}

export interface CalendarSyncRequest {
  readonly calendarId: string;
  /** Absent: a full sync. The `nextCursor` of the previous page or sync otherwise. */
  readonly cursor?: string;
  /** What a full sync reads (now to the horizon, 31 days by default). */
  readonly window: Interval;
}

export interface CalendarSyncPage {
  /** Events created or changed since the cursor (all of them on a full sync). */
  readonly events: readonly RawCalendarEvent[];
  /** Events deleted since the cursor, by eventId (never on a full sync). */
  readonly removed: readonly string[];
  /** The next page's cursor (complete: false) or the next sync's (complete: true). */
  readonly nextCursor?: string;
  /** True on the last page of this sync. */
  readonly complete: boolean;
  /** Epoch ms up to which the calendar was read in full. */
  readonly readUntil: number;
}

/** Calendar sync errors: the common codes, and a cursor the upstream no longer accepts. */
export type CalendarSyncErrorCode = ConnectorErrorCode | "cursor_expired";

export interface CalendarSync {
  sync(request: CalendarSyncRequest): Promise<ConnectorResult<CalendarSyncPage, CalendarSyncErrorCode>>;
}
