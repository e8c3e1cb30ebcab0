/**
 * CalendarSync over Microsoft Graph calendarView delta (guide "Get incremental changes to
 * events in a calendar view", reference "event: delta"):
 *
 * - Full sync (no cursor): GET {user}/[calendars/{id}/]calendarView/delta with startDateTime
 *   and endDateTime = the window. Pages follow `@odata.nextLink`; the last page carries
 *   `@odata.deltaLink`, the next sync's cursor. Graph encodes the window and every other
 *   parameter into both links, which are replayed exactly as written, never rebuilt.
 * - Incremental (cursor = a deltaLink): the changes since; an entry with `@removed` left the
 *   view (deleted, or moved out of the window) and is reported by id in `removed`.
 * - Every call sends `Prefer: outlook.timezone="UTC"` (http.ts) and, when configured,
 *   `odata.maxpagesize`; headers are not part of the links, so they go on every page.
 * - 410 Gone, or the error codes syncStateNotFound / resyncRequired / syncStateInvalid (the
 *   delta token expired or the mailbox's sync state was reset), is cursor_expired.
 *
 * Entries are instances already expanded by Exchange (map-event.ts); nothing here expands.
 */
import type {
  CalendarSync,
  CalendarSyncErrorCode,
  CalendarSyncPage,
  CalendarSyncRequest,
  ConnectorResult,
  RawCalendarEvent,
} from "../port.js";
import { decodeCursor, encodeCursor, type GraphCursor } from "./cursor.js";
import { graphCodeOf, graphError } from "./errors.js";
import type { GraphDeltaPage } from "./graph-types.js";
import { callGraph, type GraphHttpDeps } from "./http.js";
import { mapEvent } from "./map-event.js";
import { UnreadableEvent } from "../unreadable-event.js";
import type { GraphPaths } from "./paths.js";

type Result = ConnectorResult<CalendarSyncPage, CalendarSyncErrorCode>;

const RESYNC_CODES = new Set(["syncstatenotfound", "resyncrequired", "syncstateinvalid"]);

/** Graph's dateTime query values: ISO 8601 in UTC. */
const iso = (ms: number): string => new Date(ms).toISOString();

export class GraphCalendarSync implements CalendarSync {
  constructor(
    private readonly paths: GraphPaths,
    private readonly deps: GraphHttpDeps,
    private readonly pageSize: number | undefined,
  ) {}

  async sync(request: CalendarSyncRequest): Promise<Result> {
    let cursor: GraphCursor | undefined;
    if (request.cursor !== undefined) {
      cursor = decodeCursor(request.cursor, this.paths.base);
      if (cursor === undefined) {
        return {
          ok: false,
          error: { code: "cursor_expired", message: "the cursor is not a Graph delta cursor" },
        };
      }
    }
    const full = cursor === undefined || (cursor.k === "next" && cursor.full);
    const readUntil = cursor?.readUntil ?? request.window.end;
    const url =
      cursor?.link ??
      `${this.paths.calendar(request.calendarId, "calendarView", "delta")}?startDateTime=${encodeURIComponent(
        iso(request.window.start),
      )}&endDateTime=${encodeURIComponent(iso(request.window.end))}`;
    const prefer = [
      'outlook.timezone="UTC"',
      ...(this.pageSize !== undefined ? [`odata.maxpagesize=${this.pageSize}`] : []),
    ];
    const outcome = await callGraph(this.deps, {
      method: "GET",
      url,
      headers: { Prefer: prefer.join(", ") },
    });
    if (!outcome.ok)
      return { ok: false, error: outcome.error, ...(outcome.meta && { upstream: outcome.meta }) };
    const upstream = outcome.meta;
    const code = graphCodeOf(outcome.value.data)?.toLowerCase();
    if (
      outcome.value.status === 410 ||
      (outcome.value.status >= 400 && code !== undefined && RESYNC_CODES.has(code))
    ) {
      return {
        ok: false,
        upstream,
        error: {
          code: "cursor_expired",
          message: `${upstream.call} answered ${outcome.value.status}: a full sync is required`,
        },
      };
    }
    if (outcome.value.status !== 200)
      return { ok: false, upstream, error: graphError(outcome, this.deps.clock.now()) };

    const page = outcome.value.data as GraphDeltaPage | undefined;
    const events: RawCalendarEvent[] = [];
    const removed: string[] = [];
    try {
      for (const entry of page?.value ?? []) {
        if (entry["@removed"] !== undefined) {
          if (!full && entry.id) removed.push(entry.id);
          continue;
        }
        const event = mapEvent(entry);
        if (event !== undefined) events.push(event);
      }
    } catch (e) {
      if (!(e instanceof UnreadableEvent)) throw e;
      return {
        ok: false,
        upstream,
        error: { code: "unavailable", message: `unreadable Graph event: ${e.message}` },
      };
    }
    const next = page?.["@odata.nextLink"];
    const delta = page?.["@odata.deltaLink"];
    if (next === undefined && delta === undefined) {
      return {
        ok: false,
        upstream,
        error: {
          code: "unavailable",
          message: `${upstream.call} answered a page without nextLink or deltaLink`,
        },
      };
    }
    const nextCursor =
      next !== undefined
        ? encodeCursor({ k: "next", link: next, readUntil, full })
        : encodeCursor({ k: "delta", link: delta!, readUntil });
    return {
      ok: true,
      upstream,
      value: { events, removed, complete: next === undefined, nextCursor, readUntil },
    };
  }
}
