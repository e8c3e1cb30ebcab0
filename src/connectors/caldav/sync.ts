/**
 * CalendarSync for CalDAV (ports/calendar-sync.ts).
 *
 * Full sync (no cursor), one page:
 *  1. PROPFIND the collection's DAV:sync-token first, so a change made while we read is
 *     reported again by the next incremental sync rather than lost;
 *  2. calendar-query REPORTs (RFC 4791 §7.8) for VEVENT resources overlapping the window, and
 *     for every resource with an RRULE or RDATE: RFC 4791 §9.9 asks the server to test a time
 *     range against each instance, but some servers (xandikos 0.2) test only the first, and a
 *     weekly series begun last year must not vanish from busy time. No <C:expand>: every VEVENT
 *     comes back as written (a master and its RECURRENCE-ID overrides share one resource).
 *  `readUntil` is the window's end. Without a sync-token (a server without RFC 6578) there is
 *  no `nextCursor`, and the next sync is a full one again.
 *
 * Incremental sync (cursor = sync-token + the lineage's readUntil, cursor.ts):
 *  sync-collection (RFC 6578 §3.2, level 1, getetag), then calendar-multiget of the changed
 *  resources. Deleted members (404 in the report) are `removed` by eventId. A changed resource
 *  is reported whole: its events REPLACE every event the caller holds under that eventId (an
 *  override removed from a series leaves no trace otherwise); a changed resource left with no
 *  VEVENT is reported removed. A 507 on the collection (§3.6, truncated answer) is a page:
 *  `complete: false` with the next token.
 *
 * A refused token is `cursor_expired`: the valid-sync-token precondition (403/409, §3.2) or a
 * 409. Xandikos 0.2 answers a token it does not know with a 500; a 500 to a sync-collection is
 * therefore checked with a PROPFIND of the same collection, and when that succeeds the server is
 * up and it is the token it failed on: cursor_expired (a full sync is the safe recovery).
 *
 * An operation of several requests answers the UpstreamMeta of its last request (on failure,
 * the request that failed). A resource that is not readable iCalendar fails the sync as
 * `unavailable` (an incomplete sync: the gateway keeps the busy time it had, docs/ARCHITECTURE.md,
 * Calendar sync).
 */
import type { Logger } from "../../protocol/logger.js";
import type { SkippedIn } from "./collect.js";
import type {
  CalendarSync,
  CalendarSyncErrorCode,
  CalendarSyncPage,
  CalendarSyncRequest,
  ConnectorResult,
  Interval,
  RawCalendarEvent,
  UpstreamMeta,
} from "../port.js";
import { decodeCursor, encodeCursor, type SyncCursor } from "./cursor.js";
import {
  calendarMultiget,
  calendarQuery,
  syncCollection,
  syncTokenPropfind,
  type DavResource,
} from "./dav.js";
import { davCall, isSuccess, type CaldavContext, type DavOutcome } from "./context.js";
import { calendarUrl, eventIdOf, isCollection } from "./resources.js";
import { errorText } from "./upstream.js";

type SyncResult = ConnectorResult<CalendarSyncPage, CalendarSyncErrorCode>;

const MULTIGET_BATCH = 100;

const failed = (outcome: Extract<DavOutcome, { ok: false }>): SyncResult => ({
  ok: false,
  error: outcome.error,
  upstream: outcome.meta,
});

const unreadable = (message: string, meta: UpstreamMeta): SyncResult => ({
  ok: false,
  error: { code: "unavailable", message },
  upstream: meta,
});

export function createCalendarSync(ctx: CaldavContext): CalendarSync {
  return {
    async sync(request: CalendarSyncRequest): Promise<SyncResult> {
      const where = calendarUrl(ctx.server, request.calendarId);
      if (!where.ok) return { ok: false, error: { code: "invalid_request", message: where.error } };
      if (request.cursor === undefined) return fullSync(ctx, where.value, request.window);
      const cursor = decodeCursor(request.cursor);
      if (cursor === undefined)
        return {
          ok: false,
          error: { code: "cursor_expired", message: "the cursor is not one this CalDAV connector wrote" },
        };
      return incrementalSync(ctx, where.value, cursor);
    },
  };
}

const missing = (calendar: URL, resources: readonly DavResource[]): boolean =>
  resources.some((r) => r.status === 404 && isCollection(calendar, r.href));

/**
 * The resources' VEVENTs (read in the parse worker, collect.ts) into `into` by eventId; the
 * message of the first unreadable one.
 */
function collect(
  outcome: Extract<DavOutcome, { ok: true }>,
  into: Map<string, readonly RawCalendarEvent[]>,
  ctx: CaldavContext,
): string | undefined {
  const { collected } = outcome.value;
  for (const [eventId, events] of collected?.events ?? []) into.set(eventId, events);
  logSkipped(ctx.logger, collected?.skipped);
  return collected?.problem;
}

async function fullSync(ctx: CaldavContext, calendar: URL, window: Interval): Promise<SyncResult> {
  if (!Number.isFinite(window.start) || !Number.isFinite(window.end) || window.end <= window.start)
    return {
      ok: false,
      error: { code: "invalid_request", message: "the sync window is empty or not finite" },
    };
  const token = await davCall(ctx, "PROPFIND", calendar, "0", syncTokenPropfind, "reading the calendar");
  if (!token.ok) return failed(token);
  // A PROPFIND of a missing collection may come back 207 with a 404 inside (xandikos does).
  if (missing(calendar, token.value.multistatus.resources))
    return {
      ok: false,
      error: { code: "not_found", message: "the calendar does not exist" },
      upstream: token.meta,
    };
  const syncToken = token.value.multistatus.resources.find((r) => r.syncToken !== undefined)?.syncToken;
  const byId = new Map<string, readonly RawCalendarEvent[]>();
  let meta = token.meta;
  for (const match of [window, { property: "RRULE" as const }, { property: "RDATE" as const }]) {
    const query = await davCall(
      ctx,
      "REPORT",
      calendar,
      "1",
      calendarQuery(match),
      "querying the calendar",
      calendar,
    );
    if (!query.ok) return failed(query);
    meta = query.meta;
    const problem = collect(query, byId, ctx);
    if (problem !== undefined) return unreadable(problem, meta);
  }
  return {
    ok: true,
    value: {
      events: [...byId.values()].flat(),
      removed: [],
      ...(syncToken === undefined
        ? {}
        : { nextCursor: encodeCursor({ token: syncToken, readUntil: window.end }) }),
      complete: true,
      readUntil: window.end,
    },
    upstream: meta,
  };
}

/** The failed sync-collection in the port's terms: a refused token is cursor_expired. */
async function syncFailure(
  ctx: CaldavContext,
  calendar: URL,
  outcome: Extract<DavOutcome, { ok: false }>,
): Promise<SyncResult> {
  const status = outcome.answer?.status;
  const body = outcome.answer === undefined ? "" : errorText(outcome.answer);
  if (status === 409 || ((status === 403 || status === 400) && body.includes("valid-sync-token")))
    return {
      ok: false,
      error: { code: "cursor_expired", message: `the CalDAV server refused the sync token (${status})` },
      upstream: outcome.meta,
    };
  if (status !== 500) return failed(outcome);
  const probe = await davCall(ctx, "PROPFIND", calendar, "0", syncTokenPropfind, "reading the calendar");
  if (!probe.ok) return failed(probe);
  if (missing(calendar, probe.value.multistatus.resources))
    return {
      ok: false,
      error: { code: "not_found", message: "the calendar does not exist" },
      upstream: probe.meta,
    };
  return {
    ok: false,
    error: {
      code: "cursor_expired",
      message:
        "the CalDAV server failed (500) on the sync token but answers otherwise: the token is not valid",
    },
    upstream: outcome.meta,
  };
}

async function incrementalSync(ctx: CaldavContext, calendar: URL, cursor: SyncCursor): Promise<SyncResult> {
  const report = await davCall(
    ctx,
    "REPORT",
    calendar,
    "0",
    syncCollection(cursor.token),
    "syncing the calendar",
  );
  if (!report.ok) return syncFailure(ctx, calendar, report);
  const nextToken = report.value.multistatus.syncToken;
  if (nextToken === undefined) return unreadable("the sync-collection answer has no sync-token", report.meta);
  let meta = report.meta;
  const removed = new Set<string>();
  const changed: string[] = [];
  let truncated = false;
  for (const r of report.value.multistatus.resources) {
    if (isCollection(calendar, r.href)) {
      truncated ||= r.status === 507;
      continue;
    }
    if (r.status === 404) removed.add(eventIdOf(calendar, r.href));
    else if (isSuccess(r.status)) changed.push(new URL(r.href, calendar).pathname);
  }
  const byId = new Map<string, readonly RawCalendarEvent[]>();
  for (let i = 0; i < changed.length; i += MULTIGET_BATCH) {
    const batch = changed.slice(i, i + MULTIGET_BATCH);
    const got = await davCall(
      ctx,
      "REPORT",
      calendar,
      "1",
      calendarMultiget(batch),
      "reading changed events",
      calendar,
    );
    if (!got.ok) return failed(got);
    meta = got.meta;
    const problem = collect(got, byId, ctx);
    if (problem !== undefined) return unreadable(problem, meta);
    for (const r of got.value.multistatus.resources)
      if (r.status === 404) removed.add(eventIdOf(calendar, r.href));
  }
  for (const href of changed) {
    const id = eventIdOf(calendar, href);
    if ((byId.get(id) ?? []).length === 0) removed.add(id);
  }
  return {
    ok: true,
    value: {
      events: [...byId.values()].flat(),
      removed: [...removed].filter((id) => (byId.get(id) ?? []).length === 0),
      nextCursor: encodeCursor({ token: nextToken, readUntil: cursor.readUntil }),
      complete: !truncated,
      readUntil: cursor.readUntil,
    },
    upstream: meta,
  };
}

/** Lines a resource held that are not iCalendar content lines: left out, and the operator told. */
export function logSkipped(
  logger: Pick<Logger, "warn"> | undefined,
  skipped: readonly SkippedIn[] | undefined,
): void {
  if (skipped === undefined || skipped.length === 0) return;
  logger?.warn("calendar: lines that are not iCalendar content lines were left out; the rest was read", {
    lines: skipped.map((s) => ({ event_id: s.eventId, line: s.line, text: s.text })),
  });
}
