/**
 * One sync of one host calendar (issue #11, SchCP §10 "Calendar fallback"): read what changed
 * (or everything, on the first sync, on a refused cursor, or when the horizon must move),
 * expand the recurrences with their exceptions (src/calendar), lay the busy time on the
 * host's units and replace the hold store's busy blocks with it. After a sync, availability
 * and holds on that host read busy time from the store and make no upstream call.
 *
 * Failure keeps what was there (§10): a sync that fails on any page, or whose expansion hits
 * its bound, leaves the previous events, cursor and busy time in place and reports
 * "incomplete" with the reason. A cursor the calendar refuses (`cursor_expired`) is never
 * replayed: the sync starts over with a full read, once.
 */
import { expandEvents } from "../../calendar/index.js";
import type { CalendarSync, Interval, RawCalendarEvent } from "../../connectors/port.js";
import type { HoldStore } from "../../holds/port.js";
import { layBusyOnUnits, type BusyOccurrence, type CalendarUnits } from "./units.js";
import type { CalendarStateStore, CalendarSyncState, SyncConflict, SyncReport } from "./state.js";

/** What a calendar host's configuration says about its calendars. */
export interface CalendarHostPlan {
  readonly hostId: string;
  /** The host's IANA zone: floating times in its calendars are read in it. */
  readonly timezone: string;
  readonly units: CalendarUnits;
  /** Calendars whose busy time counts, each optionally mapped to one unit. */
  readonly calendars: ReadonlyArray<{ readonly calendarId: string; readonly resourceId?: string }>;
  /** How far ahead a full sync reads (31 days by default, §10). */
  readonly horizonMs: number;
  /** Expansion bounds: occurrences per series, and in all. */
  readonly maxPerSeries?: number;
  readonly maxTotal?: number;
}

export interface CalendarSyncDeps {
  readonly sync: CalendarSync;
  readonly state: CalendarStateStore;
  readonly store: HoldStore;
  readonly now: () => number;
  /**
   * §5.8: what to do about bookings the calendar's time now overlaps (displace.ts), answering
   * each conflict with its outcome for the report. Without it they are only reported.
   */
  readonly displace?: (conflicts: readonly SyncConflict[]) => Promise<readonly SyncConflict[]>;
}

export const DEFAULT_HORIZON_MS = 31 * 24 * 3_600_000;
/** A full sync again when what was read reaches less than this far past the horizon's start. */
const HORIZON_SLACK_MS = 24 * 3_600_000;
const MAX_PAGES = 500;
export const DEFAULT_MAX_PER_SERIES = 1_000;
export const DEFAULT_MAX_TOTAL = 50_000;

/**
 * The source of calendar busy blocks in the hold store: one for all of a host's calendars,
 * because an unmapped event may land on any unit and units are filled from all of them.
 */
export const CALENDAR_BUSY_SOURCE = "calendar";

interface ReadResult {
  readonly state: CalendarSyncState;
  readonly kind: "full" | "incremental";
  readonly pages: number;
  readonly restarted: boolean;
}

type ReadOutcome =
  | ({ readonly ok: true } & ReadResult)
  | {
      readonly ok: false;
      readonly kind: "full" | "incremental";
      readonly pages: number;
      readonly restarted: boolean;
      readonly code: string;
      readonly message: string;
      readonly reason?: string;
    };

/**
 * Syncs every calendar of a host, then lays all their busy time on the units at once (an
 * unmapped event may take any unit, so the units are filled from every calendar together).
 * Returns one report per calendar; the store's busy time changes only if every calendar's
 * read and the expansion completed.
 */
export async function syncCalendarHost(
  deps: CalendarSyncDeps,
  plan: CalendarHostPlan,
): Promise<SyncReport[]> {
  const started = deps.now();
  const reads = await Promise.all(plan.calendars.map((c) => readCalendar(deps, plan, c.calendarId, started)));
  const report = (i: number, extra: Partial<SyncReport>): SyncReport => {
    const r = reads[i] as ReadOutcome;
    const calendarId = (plan.calendars[i] as { calendarId: string }).calendarId;
    return {
      hostId: plan.hostId,
      calendarId,
      at: started,
      kind: r.kind,
      outcome: "incomplete",
      pages: r.pages,
      events: r.ok ? Object.keys(r.state.events).length : 0,
      durationMs: deps.now() - started,
      ...(r.restarted && { restarted: true }),
      ...(!r.ok && {
        error: { code: r.code, message: r.message, ...(r.reason !== undefined && { reason: r.reason }) },
      }),
      ...extra,
    };
  };
  if (reads.some((r) => !r.ok))
    return finish(
      deps,
      reads.map((_, i) => report(i, {})),
    );

  const done = reads as Array<{ ok: true } & ReadResult>;
  const own = await deps.state.ownIds(plan.hostId);
  const busy: BusyOccurrence[] = [];
  const perCalendar: number[] = [];
  let complete = true;
  for (const [i, r] of done.entries()) {
    const { resourceId } = plan.calendars[i] as { resourceId?: string };
    const events = Object.entries(r.state.events).flatMap(([id, group]) => (own.has(id) ? [] : group));
    const expanded = expandEvents(events, {
      from: started,
      to: r.state.readUntil,
      floatingZone: plan.timezone,
      maxPerSeries: plan.maxPerSeries ?? DEFAULT_MAX_PER_SERIES,
      maxTotal: plan.maxTotal ?? DEFAULT_MAX_TOTAL,
    });
    complete &&= expanded.complete;
    const mine = expanded.occurrences.filter((o) => o.status !== "CANCELLED" && !o.transparent);
    perCalendar.push(mine.length);
    for (const o of mine)
      busy.push({ start: o.start, end: o.end, ...(resourceId !== undefined && { resourceId }) });
  }
  if (!complete) {
    const error = {
      code: "expansion_bound",
      message: "the calendar has more occurrences than the sync may expand",
    };
    return finish(
      deps,
      done.map((_, i) => report(i, { error })),
    );
  }
  // Every calendar read and expanded: persist the reads, then the busy time.
  for (const [i, r] of done.entries()) {
    await deps.state.put(plan.hostId, (plan.calendars[i] as { calendarId: string }).calendarId, r.state);
  }
  // The gateway's own holds and bookings: calendar time avoids their units where it can.
  const span = { start: started, end: Math.max(...done.map((r) => r.state.readUntil)) };
  const occupancy = await deps.store.listOccupancy(plan.hostId, plan.units.ids, span, started);
  const ours = new Map(
    [...occupancy].map(([unit, entries]) => [
      unit,
      entries.filter((e) => e.agent).map((e) => ({ start: e.start, end: e.end })),
    ]),
  );
  const laid = layBusyOnUnits(plan.units, busy, ours);
  for (const [unitId, intervals] of laid) {
    await deps.store.replaceBusy(plan.hostId, unitId, CALENDAR_BUSY_SOURCE, intervals);
  }
  // §5.8: calendar time that now overlaps the gateway's own hold or booking on its unit (every
  // unit taken then). Each is displaced (another free unit, else a host change offer, else
  // unresolved for the host) once the store holds the new busy time, so a move sees it.
  const found: SyncConflict[] = [...laid].flatMap(([unit, intervals]) =>
    (ours.get(unit) ?? [])
      .filter((b) => intervals.some((i) => i.start < b.end && i.end > b.start))
      .map((b) => ({ resourceId: unit, start: b.start, end: b.end })),
  );
  const conflicts = await displace(deps, found);
  return finish(
    deps,
    done.map((r, i) =>
      report(i, {
        outcome: "complete",
        busy: perCalendar[i] ?? 0,
        readUntil: r.state.readUntil,
        ...(conflicts.length > 0 && { conflicts }),
      }),
    ),
  );
}

/** The displacement's answer; a failure of it leaves every conflict unresolved, saying why. */
async function displace(deps: CalendarSyncDeps, found: SyncConflict[]): Promise<readonly SyncConflict[]> {
  // Called with none too: the displacement forgets bookings no longer in conflict.
  if (deps.displace === undefined) return found;
  try {
    return await deps.displace(found);
  } catch (e) {
    const reason = `displacement_failed: ${e instanceof Error ? e.message : String(e)}`;
    return found.map((c) => ({ ...c, outcome: "unresolved" as const, reason }));
  }
}

async function finish(deps: CalendarSyncDeps, reports: SyncReport[]): Promise<SyncReport[]> {
  for (const r of reports) await deps.state.putReport(r);
  return reports;
}

/** Reads one calendar's changes into a new state (nothing is stored here). */
async function readCalendar(
  deps: CalendarSyncDeps,
  plan: CalendarHostPlan,
  calendarId: string,
  now: number,
): Promise<ReadOutcome> {
  const previous = await deps.state.get(plan.hostId, calendarId);
  const window: Interval = { start: now, end: now + plan.horizonMs };
  const needsFull =
    previous?.cursor === undefined || previous.readUntil < now + plan.horizonMs - HORIZON_SLACK_MS;
  let restarted = false;
  let pages = 0;
  for (;;) {
    const full = needsFull || restarted;
    const kind = full ? "full" : "incremental";
    const read = await readPages(
      deps.sync,
      calendarId,
      window,
      full ? undefined : previous?.cursor,
      full ? {} : (previous?.events ?? {}),
    );
    pages += read.pages;
    if (read.ok) {
      // Never past the horizon this sync asked for, whatever the calendar says it read.
      const reported = Math.min(read.readUntil, window.end);
      const readUntil = full ? reported : Math.min(reported, previous?.readUntil ?? reported);
      return {
        ok: true,
        kind,
        pages,
        restarted,
        state: {
          ...(read.cursor !== undefined && { cursor: read.cursor }),
          readUntil,
          fullSyncAt: full ? now : (previous?.fullSyncAt ?? now),
          events: read.events,
        },
      };
    }
    if (read.code === "cursor_expired" && !full) {
      restarted = true;
      continue;
    }
    const { code, message } = read;
    return {
      ok: false,
      kind,
      pages,
      restarted,
      code,
      message,
      ...("reason" in read && { reason: read.reason }),
    };
  }
}

type PagesOutcome =
  | {
      readonly ok: true;
      readonly pages: number;
      readonly events: Record<string, readonly RawCalendarEvent[]>;
      readonly cursor?: string;
      readonly readUntil: number;
    }
  | {
      readonly ok: false;
      readonly pages: number;
      readonly code: string;
      readonly message: string;
      readonly reason?: string;
    };

async function readPages(
  sync: CalendarSync,
  calendarId: string,
  window: Interval,
  cursor: string | undefined,
  base: Readonly<Record<string, readonly RawCalendarEvent[]>>,
): Promise<PagesOutcome> {
  const events: Record<string, readonly RawCalendarEvent[]> = { ...base };
  let next = cursor;
  for (let pages = 1; pages <= MAX_PAGES; pages++) {
    const page = await sync.sync({ calendarId, window, ...(next !== undefined && { cursor: next }) });
    if (!page.ok) {
      const { code, message, reason } = page.error;
      return { ok: false, pages, code, message, ...(reason !== undefined && { reason }) };
    }
    // A changed event id is reported whole: its events replace all the caller held under it.
    const changed = new Map<string, RawCalendarEvent[]>();
    for (const e of page.value.events) changed.set(e.eventId, [...(changed.get(e.eventId) ?? []), e]);
    for (const [id, group] of changed) events[id] = group;
    for (const id of page.value.removed) delete events[id];
    next = page.value.nextCursor;
    if (page.value.complete) {
      return {
        ok: true,
        pages,
        events,
        readUntil: page.value.readUntil,
        ...(next !== undefined && { cursor: next }),
      };
    }
    if (next === undefined) {
      return {
        ok: false,
        pages,
        code: "unavailable",
        message: "the calendar said more pages follow but gave no cursor",
      };
    }
  }
  return {
    ok: false,
    pages: MAX_PAGES,
    code: "unavailable",
    message: `the calendar answered more than ${MAX_PAGES} pages`,
  };
}
