/**
 * CalendarSync over Google Calendar events.list (guide "Synchronize resources efficiently"):
 *
 * - Full sync (no cursor): timeMin/timeMax = the window, `singleEvents=false` so a series comes
 *   as its master with `recurrence` and its exceptions apart (nothing expanded here), and
 *   `showDeleted=false`: deleted events are left out, but cancelled instances of a series
 *   still come (as the reference says for singleEvents=false), and they are cancelled
 *   exceptions, not removals. Pages follow `nextPageToken` with the same query; the last page
 *   carries `nextSyncToken`, the next sync's cursor.
 * - Incremental (cursor): `syncToken` only (Google refuses timeMin/timeMax with it); deleted
 *   items always come, as `status: "cancelled"`. A cancelled item of a series
 *   (`recurringEventId`) is a cancelled exception; any other cancelled item (a single event
 *   or a whole series) is a removal, reported by id in `removed`.
 * - 410 Gone (fullSyncRequired: the token expired, or the calendar's sharing changed) is
 *   cursor_expired: the caller drops this lineage and syncs in full again.
 *
 * A cancelled instance carries no iCalUID, yet its series' uid is what ties it to the series:
 * it is taken from the series when the same page has it, else read with events.get on the
 * series (once per series per page). A series that is gone (deleted on the same page, or
 * 404/410/cancelled when read) makes the instance a removal.
 */
import type { calendar_v3 } from "@googleapis/calendar";
import type {
  CalendarSync,
  CalendarSyncErrorCode,
  CalendarSyncPage,
  CalendarSyncRequest,
  ConnectorError,
  ConnectorResult,
  RawCalendarEvent,
} from "../port.js";
import { decodeCursor, encodeCursor, type GoogleCursor } from "./cursor.js";
import { googleError } from "./errors.js";
import type { CallOutcome } from "../http.js";
import { callGoogle, callLine, type GoogleHttpDeps } from "./http.js";
import { mapCancelledInstance, mapEvent } from "./map-event.js";
import { UnreadableEvent } from "../unreadable-event.js";
import type { Result } from "../../protocol/result.js";

type SyncResult = ConnectorResult<CalendarSyncPage, CalendarSyncErrorCode>;

export class GoogleCalendarSync implements CalendarSync {
  constructor(
    private readonly api: calendar_v3.Calendar,
    private readonly deps: GoogleHttpDeps,
    private readonly pageSize: number,
  ) {}

  private now(): number {
    return this.deps.clock.now();
  }

  async sync(request: CalendarSyncRequest): Promise<SyncResult> {
    const { calendarId } = request;
    let cursor: GoogleCursor | undefined;
    if (request.cursor !== undefined) {
      cursor = decodeCursor(request.cursor);
      if (cursor === undefined) {
        return {
          ok: false,
          error: { code: "cursor_expired", message: "the cursor is not a Google sync cursor" },
        };
      }
    }
    const full = cursor === undefined || cursor.k === "full";
    const start = cursor?.k === "full" ? cursor.start : request.window.start;
    const end = cursor?.k === "full" ? cursor.end : request.window.end;
    const readUntil = cursor?.k === "incr" ? cursor.readUntil : end;
    const params: calendar_v3.Params$Resource$Events$List = {
      calendarId,
      singleEvents: false,
      maxResults: this.pageSize,
      ...(cursor?.pageToken !== undefined && { pageToken: cursor.pageToken }),
      ...(cursor?.k === "incr"
        ? { syncToken: cursor.syncToken }
        : {
            timeMin: new Date(start).toISOString(),
            timeMax: new Date(end).toISOString(),
            showDeleted: false,
          }),
    };
    const call = callLine("GET", ["calendars", calendarId, "events"]);
    const outcome = await callGoogle(this.deps, call, (o) => this.api.events.list(params, o));
    if (!outcome.ok)
      return { ok: false, error: outcome.error, ...(outcome.meta && { upstream: outcome.meta }) };
    const upstream = outcome.meta;
    if (outcome.value.status === 410) {
      return {
        ok: false,
        upstream,
        error: { code: "cursor_expired", message: `${call} answered 410: a full sync is required` },
      };
    }
    if (outcome.value.status !== 200) return { ok: false, upstream, error: googleError(outcome, this.now()) };

    const page = outcome.value.data as calendar_v3.Schema$Events;
    const read = await this.readItems(calendarId, page.items ?? [], full);
    if (!read.ok) return { ok: false, upstream, error: read.error };

    let nextCursor: string | undefined;
    if (page.nextPageToken) {
      nextCursor = encodeCursor(
        cursor?.k === "incr"
          ? { k: "incr", syncToken: cursor.syncToken, pageToken: page.nextPageToken, readUntil }
          : { k: "full", pageToken: page.nextPageToken, start, end },
      );
    } else if (page.nextSyncToken) {
      nextCursor = encodeCursor({ k: "incr", syncToken: page.nextSyncToken, readUntil });
    }
    return {
      ok: true,
      upstream,
      value: {
        events: read.value.events,
        removed: read.value.removed,
        complete: !page.nextPageToken,
        readUntil,
        ...(nextCursor !== undefined && { nextCursor }),
      },
    };
  }

  private async readItems(
    calendarId: string,
    items: readonly calendar_v3.Schema$Event[],
    full: boolean,
  ): Promise<
    Result<{ events: RawCalendarEvent[]; removed: string[] }, ConnectorError<CalendarSyncErrorCode>>
  > {
    const uids = new Map<string, string | null>();
    for (const item of items) {
      if (!item.id) continue;
      // A series deleted on this same page: its cancelled instances go with it, no lookup.
      if (item.status === "cancelled" && !item.recurringEventId) uids.set(item.id, null);
      else if (item.iCalUID) uids.set(item.id, item.iCalUID);
    }
    const events: RawCalendarEvent[] = [];
    const removed: string[] = [];
    try {
      for (const item of items) {
        if (item.status !== "cancelled") {
          events.push(mapEvent(item, item.iCalUID ?? item.id ?? ""));
          continue;
        }
        if (!item.recurringEventId) {
          // A deleted single event or series: a removal (a full sync has nothing to remove).
          if (!full && item.id) removed.push(item.id);
          continue;
        }
        let uid = item.iCalUID ?? uids.get(item.recurringEventId);
        if (uid === undefined) {
          const series = await this.seriesUid(calendarId, item.recurringEventId);
          if (!series.ok) return series;
          uid = series.value;
          uids.set(item.recurringEventId, uid);
        }
        if (uid === null) {
          if (!full && item.id) removed.push(item.id);
          continue;
        }
        events.push(mapCancelledInstance(item, uid));
      }
    } catch (e) {
      if (e instanceof UnreadableEvent) {
        return {
          ok: false,
          error: { code: "unavailable", message: `unreadable Google event: ${e.message}` },
        };
      }
      throw e;
    }
    return { ok: true, value: { events, removed } };
  }

  /** The series' iCalUID; null when the series is gone (404/410 or cancelled). */
  private async seriesUid(
    calendarId: string,
    seriesId: string,
  ): Promise<Result<string | null, ConnectorError<CalendarSyncErrorCode>>> {
    const call = callLine("GET", ["calendars", calendarId, "events", seriesId]);
    const outcome: CallOutcome = await callGoogle(this.deps, call, (o) =>
      this.api.events.get({ calendarId, eventId: seriesId }, o),
    );
    if (!outcome.ok) return { ok: false, error: outcome.error };
    if (outcome.value.status === 404 || outcome.value.status === 410) return { ok: true, value: null };
    if (outcome.value.status !== 200) return { ok: false, error: googleError(outcome, this.now()) };
    const series = outcome.value.data as calendar_v3.Schema$Event;
    if (series.status === "cancelled" || !series.iCalUID) return { ok: true, value: null };
    return { ok: true, value: series.iCalUID };
  }
}
