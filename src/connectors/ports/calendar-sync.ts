/**
 * The calendar sync capability (Google, Microsoft 365, CalDAV, a local .ics directory): the
 * calendar's events as it stores them, recurrence NOT expanded, read incrementally.
 *
 * The connector only translates; src/calendar expands recurrences (EXDATE, RDATE, moved and
 * cancelled RECURRENCE-ID instances, RANGE=THISANDFUTURE, all-day, floating times, DST) and a
 * sync job turns the result into busy time in the hold store (docs/ARCHITECTURE.md, "Calendar
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
import type { Interval, RawCalendarEvent } from "../../calendar/index.js";
import type { ConnectorErrorCode, ConnectorResult } from "./result.js";

export type { EventTime, RawCalendarEvent } from "../../calendar/index.js";

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
