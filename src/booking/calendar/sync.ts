/**
 * One sync of one host calendar (SchCP §10 "Calendar fallback"): read what changed
 * (or everything, on the first sync, on a refused cursor, or when the horizon must move),
 * expand the recurrences with their exceptions (src/calendar), lay the busy time on the
 * host's units and replace the hold store's busy blocks with it. After a sync, availability
 * and holds on that host read busy time from the store and make no upstream call.
 *
 * Its cost follows what changed: only the series (UIDs) of changed or removed events are
 * expanded again, and only the host-local days (local-days.ts) their old or new occurrences
 * touch are laid on the units again, each day its own busy source in the hold store
 * (`calendar@<day>`), with the gateway's own holds and bookings read for those days only. Own
 * events are known by id (CalendarStateStore.ownAmong), never re-read. Laying is per day (an
 * occurrence over midnight is laid in both days), so a day's layout depends on that day alone;
 * local days keep that split at the host's midnight, outside its business hours.
 *
 * An event that cannot be read (or a series that cannot be expanded) is skipped and logged
 * through the caller's logger, the rest is expanded, and the report says how many were
 * skipped with `complete: false` (SchCP-side rule for calendar expansion).
 *
 * Bounds are per series (occurrences per horizon day, times the horizon) and per local day (the
 * occurrences of one calendar), never one total: a series past its bound is kept up to where
 * it was cut and nothing after that is offered; a day past its bound is laid busy whole. Either
 * way the busy time is laid and the report says `degraded` with the reason.
 *
 * Failure keeps what was there (§10): a sync that fails on any page, or whose expansion hits
 * its bound, leaves the previous events, cursor and busy time in place and reports
 * "incomplete" with the reason. A cursor the calendar refuses (`cursor_expired`) is never
 * replayed: the sync starts over with a full read, once.
 */
import { expandEvents } from "../../calendar/index.js";
import type { CalendarSync, Interval, RawCalendarEvent } from "../../connectors/port.js";
import type { HoldStore, OccupancyEntry } from "../../holds/port.js";
import type { Logger } from "../../protocol/logger.js";
import { layBusyOnUnits, type BusyOccurrence, type CalendarUnits } from "./units.js";
import { localDays, type LocalDays } from "./local-days.js";
import type {
  CalendarStateStore,
  CalendarSyncMeta,
  DayRecord,
  HostLayout,
  SeriesRecord,
  SyncConflict,
  SyncReport,
} from "./state.js";
import type { Clock } from "../../protocol/clock.js";
import type { Ok, Result } from "../../protocol/result.js";

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
  /**
   * Expansion bounds: occurrences one series may have per horizon day (its bound is this times
   * the horizon's days) unless `maxPerSeries` names the bound itself; occurrences one calendar
   * may have in one local day.
   */
  readonly maxPerSeriesPerDay?: number;
  readonly maxPerSeries?: number;
  readonly maxPerDay?: number;
}

export interface CalendarSyncDeps {
  readonly sync: CalendarSync;
  readonly state: CalendarStateStore;
  readonly store: HoldStore;
  readonly clock: Clock;
  /**
   * §5.8: what to do about bookings the calendar's time now overlaps (displace.ts), answering
   * each conflict with its outcome for the report. Without it they are only reported.
   */
  readonly displace?: (conflicts: readonly SyncConflict[]) => Promise<readonly SyncConflict[]>;
  /** Where skipped events are logged (the sync job's logger). */
  readonly logger?: Pick<Logger, "warn">;
}

/** A full sync again when what was read reaches less than this far past the horizon's start. */
const HORIZON_SLACK_MS = 24 * 3_600_000;
const MAX_PAGES = 500;
/** Every 15 minutes around the clock. */
const DEFAULT_MAX_PER_SERIES_PER_DAY = 96;
const DEFAULT_MAX_PER_DAY = 10_000;
const DAY_MS = 86_400_000;

/**
 * The source of calendar busy blocks in the hold store: one for all of a host's calendars,
 * because an unmapped event may land on any unit and units are filled from all of them.
 */
export const CALENDAR_BUSY_SOURCE = "calendar";
/** The busy source of one local day's calendar time. */
const dayBusySource = (day: number) => `${CALENDAR_BUSY_SOURCE}@${day}`;

/** One calendar read: what changed since the stored state (nothing is stored here). */
interface Read {
  readonly calendarId: string;
  readonly resourceId?: string;
  readonly kind: "full" | "incremental";
  readonly pages: number;
  readonly restarted: boolean;
  readonly previous: CalendarSyncMeta | undefined;
  readonly cursor?: string;
  readonly readUntil: number;
  readonly fullSyncAt: number;
  /** Everything is indexed again (a full read, or a state migrated from the earlier format). */
  readonly reindex: boolean;
  readonly changed: ReadonlyMap<string, readonly RawCalendarEvent[]>;
  readonly removed: ReadonlySet<string>;
}

/** A read that did not complete: how far it went, and why it stopped. */
interface ReadFailure {
  readonly kind: "full" | "incremental";
  readonly pages: number;
  readonly restarted: boolean;
  readonly code: string;
  readonly message: string;
  readonly reason?: string;
}

type ReadOutcome = Result<Read, ReadFailure>;

/** One calendar indexed: its new series and days, and the days whose busy time moved. */
interface Indexed {
  readonly read: Read;
  readonly meta: CalendarSyncMeta;
  readonly series: Map<string, SeriesRecord | null>;
  readonly days: Map<number, DayRecord | null>;
  readonly events: Map<string, readonly RawCalendarEvent[] | null>;
  readonly touched: ReadonlySet<number>;
}

/**
 * Syncs every calendar of a host, then lays the busy time of the days that changed on the
 * units. Returns one report per calendar; the store's busy time changes only if every
 * calendar's read completed.
 */
export async function syncCalendarHost(
  deps: CalendarSyncDeps,
  plan: CalendarHostPlan,
): Promise<SyncReport[]> {
  const started = deps.clock.now();
  const days = localDays(plan.timezone);
  const reads = await Promise.all(
    plan.calendars.map((c) => readCalendar(deps, plan, c.calendarId, c.resourceId, started)),
  );
  const report = (i: number, extra: Partial<SyncReport>): SyncReport => {
    const r = reads[i] as ReadOutcome;
    const read = r.ok ? r.value : r.error;
    const calendarId = (plan.calendars[i] as { calendarId: string }).calendarId;
    return {
      hostId: plan.hostId,
      calendarId,
      at: started,
      kind: read.kind,
      outcome: "incomplete",
      pages: read.pages,
      events: 0,
      durationMs: deps.clock.now() - started,
      ...(read.restarted && { restarted: true }),
      ...(!r.ok && {
        error: {
          code: r.error.code,
          message: r.error.message,
          ...(r.error.reason !== undefined && { reason: r.error.reason }),
        },
      }),
      ...extra,
    };
  };
  if (reads.some((r) => !r.ok))
    return finish(
      deps,
      reads.map((_, i) => report(i, {})),
    );
  const done = reads.map((r) => (r as Ok<Read>).value);
  const indexed: Indexed[] = [];
  for (const r of done) indexed.push(await indexCalendar(deps, plan, days, r, started));
  for (const x of indexed) {
    await deps.state.commit(plan.hostId, x.read.calendarId, {
      meta: x.meta,
      reset: x.read.reindex,
      events: x.events,
      series: x.series,
      days: x.days,
    });
  }
  const laid = await layDays(deps, plan, days, indexed, started);
  const conflicts = await displace(deps, laid.conflicts);
  return finish(
    deps,
    indexed.map((x, i) => {
      const bounded = boundMessage(days, x, laid.fullDays.get(x.read.calendarId));
      const skipped = x.meta.skipped ?? 0;
      return report(i, {
        outcome: "complete",
        events: x.meta.events ?? 0,
        busy: x.meta.busy ?? 0,
        readUntil: x.meta.readUntil,
        complete: skipped === 0 && bounded === undefined,
        ...(skipped > 0 && { skipped }),
        ...(bounded !== undefined && { degraded: { reason: "expansion_bound", message: bounded } }),
        ...(conflicts.length > 0 && { conflicts }),
      });
    }),
  );
}

function boundMessage(
  days: LocalDays,
  x: Indexed,
  fullDays: readonly number[] | undefined,
): string | undefined {
  const cuts = Object.entries(x.meta.cuts ?? {});
  const parts: string[] = [];
  if (cuts.length > 0) {
    const first = Math.min(...cuts.map(([, at]) => at));
    parts.push(
      `${cuts.length} series have more occurrences than the sync expands; nothing is offered from ${new Date(first).toISOString()}`,
    );
  }
  if (fullDays !== undefined && fullDays.length > 0)
    parts.push(
      `${fullDays.length} day(s) have more occurrences than the sync expands and are shown busy (${fullDays
        .slice(0, 3)
        .map((d) => days.label(d))
        .join(", ")})`,
    );
  return parts.length === 0 ? undefined : `calendar ${x.read.calendarId}: ${parts.join("; ")}`;
}

/** The series the changed events belong to, expanded again; the days their busy time touches. */
async function indexCalendar(
  deps: CalendarSyncDeps,
  plan: CalendarHostPlan,
  local: LocalDays,
  r: Read,
  now: number,
): Promise<Indexed> {
  const dayOf = local.dayOf;
  const { hostId } = plan;
  const cal = r.calendarId;
  const previous = r.previous;
  // The events of every series to expand, by event id.
  const events = new Map<string, readonly RawCalendarEvent[]>();
  const eventChanges = new Map<string, readonly RawCalendarEvent[] | null>();
  let oldSeries: ReadonlyMap<string, SeriesRecord> = new Map();
  let uids: Set<string>;
  let eventCount: number;
  if (r.reindex) {
    if (r.kind === "full") for (const [id, group] of r.changed) events.set(id, group);
    else {
      // A migrated state: its stored events, with this read's changes on top.
      const stored = await deps.state.getEvents(hostId, cal, await deps.state.eventIds(hostId, cal));
      for (const [id, group] of stored) if (!r.removed.has(id)) events.set(id, group);
      for (const [id, group] of r.changed) events.set(id, group);
    }
    for (const [id, group] of events) eventChanges.set(id, group);
    uids = new Set([...events.values()].flatMap((g) => g.map((e) => e.uid)));
    eventCount = events.size;
  } else {
    const ids = [...new Set([...r.changed.keys(), ...r.removed])];
    const before = await deps.state.getEvents(hostId, cal, ids);
    uids = new Set([...before.values(), ...r.changed.values()].flatMap((g) => g.map((e) => e.uid)));
    oldSeries = await deps.state.getSeries(hostId, cal, [...uids]);
    const siblings = [...new Set([...oldSeries.values()].flatMap((s) => s.ids))].filter(
      (id) => !r.changed.has(id) && !r.removed.has(id),
    );
    for (const [id, group] of await deps.state.getEvents(hostId, cal, siblings)) events.set(id, group);
    for (const [id, group] of r.changed) {
      events.set(id, group);
      eventChanges.set(id, group);
    }
    for (const id of r.removed) if (before.has(id)) eventChanges.set(id, null);
    const added = [...r.changed.keys()].filter((id) => !before.has(id)).length;
    const gone = [...r.removed].filter((id) => before.has(id) && !r.changed.has(id)).length;
    eventCount = (previous?.events ?? 0) + added - gone;
  }
  // The gateway's own events are not calendar time: its bookings hold their units already.
  const own = await deps.state.ownAmong(hostId, [...events.keys()]);
  const idsOf = new Map<string, string[]>();
  const toExpand: RawCalendarEvent[] = [];
  for (const [id, group] of events) {
    for (const uid of new Set(group.map((e) => e.uid))) {
      if (!uids.has(uid)) continue;
      const list = idsOf.get(uid) ?? [];
      list.push(id);
      idsOf.set(uid, list);
    }
    if (!own.has(id)) for (const e of group) if (uids.has(e.uid)) toExpand.push(e);
  }
  const horizonDays = Math.max(1, Math.ceil(plan.horizonMs / DAY_MS));
  const maxPerSeries =
    plan.maxPerSeries ?? (plan.maxPerSeriesPerDay ?? DEFAULT_MAX_PER_SERIES_PER_DAY) * horizonDays;
  const busyOf = new Map<string, Array<readonly [number, number]>>();
  let cut: ReadonlyMap<string, number> = new Map();
  let skippedOf: ReadonlyMap<string, number> = new Map();
  if (toExpand.length > 0 && now < r.readUntil) {
    const expanded = expandEvents(toExpand, {
      from: now,
      to: r.readUntil,
      floatingZone: plan.timezone,
      maxPerSeries,
      // The bounds are per series and per day (laid below), not one for the calendar.
      maxTotal: Number.MAX_SAFE_INTEGER,
      ...(deps.logger !== undefined && { logger: deps.logger }),
    });
    cut = expanded.cut ?? new Map();
    skippedOf = expanded.skipped ?? new Map();
    for (const o of expanded.occurrences) {
      if (o.status === "CANCELLED" || o.transparent || o.end <= o.start) continue;
      const list = busyOf.get(o.uid) ?? [];
      list.push([o.start, o.end]);
      busyOf.set(o.uid, list);
    }
  }
  const series = new Map<string, SeriesRecord | null>();
  const cuts: Record<string, number> = r.reindex ? {} : { ...(previous?.cuts ?? {}) };
  let busyCount = r.reindex ? 0 : (previous?.busy ?? 0);
  let skippedCount = r.reindex ? 0 : (previous?.skipped ?? 0);
  const touched = new Set<number>();
  const dayAdds = new Map<number, Array<readonly [number, number, string]>>();
  const addDays = (set: Set<number>, s: number, e: number) => {
    for (let d = dayOf(s); d <= dayOf(e - 1); d++) set.add(d);
  };
  for (const uid of uids) {
    const before = oldSeries.get(uid);
    if (before !== undefined) {
      busyCount -= before.busy.length;
      skippedCount -= before.skipped ?? 0;
      for (const [s, e] of before.busy) addDays(touched, s, e);
    }
    const ids = idsOf.get(uid);
    const busy = busyOf.get(uid) ?? [];
    const at = cut.get(uid);
    delete cuts[uid];
    if (ids === undefined) {
      series.set(uid, before === undefined ? null : null);
      continue;
    }
    const skipped = skippedOf.get(uid);
    series.set(uid, {
      ids,
      busy,
      ...(at !== undefined && { truncatedAt: at }),
      ...(skipped !== undefined && { skipped }),
    });
    if (at !== undefined) cuts[uid] = at;
    busyCount += busy.length;
    skippedCount += skipped ?? 0;
    for (const [s, e] of busy) {
      for (let d = dayOf(s); d <= dayOf(e - 1); d++) {
        touched.add(d);
        const list = dayAdds.get(d) ?? [];
        list.push([s, e, uid]);
        dayAdds.set(d, list);
      }
    }
  }
  if (r.reindex) for (const uid of series.keys()) if (series.get(uid) === null) series.delete(uid);
  // Each touched day: its occurrences of other series as stored, and these series' new ones.
  const stored = r.reindex
    ? new Map<number, DayRecord>()
    : await deps.state.getDays(hostId, cal, [...touched]);
  const days = new Map<number, DayRecord | null>();
  for (const d of touched) {
    const kept = (stored.get(d) ?? []).filter(([, , uid]) => !uids.has(uid));
    const next = [...kept, ...(dayAdds.get(d) ?? [])].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    days.set(d, next.length === 0 ? (r.reindex ? null : null) : next);
  }
  if (r.reindex) for (const d of [...days.keys()]) if (days.get(d) === null) days.delete(d);
  const meta: CalendarSyncMeta = {
    ...(r.cursor !== undefined && { cursor: r.cursor }),
    readUntil: r.readUntil,
    fullSyncAt: r.fullSyncAt,
    ...(Object.keys(cuts).length > 0 && { cuts }),
    events: eventCount,
    busy: busyCount,
    ...(skippedCount > 0 && { skipped: skippedCount }),
    zone: plan.timezone,
  };
  return { read: r, meta, series, days, events: eventChanges, touched };
}

interface Laid {
  readonly conflicts: SyncConflict[];
  /** Days laid busy whole because a calendar had more occurrences in them than its bound. */
  readonly fullDays: ReadonlyMap<string, readonly number[]>;
}

/** Lays the touched days (every day on a full read) on the units; answers their conflicts. */
async function layDays(
  deps: CalendarSyncDeps,
  plan: CalendarHostPlan,
  local: LocalDays,
  indexed: readonly Indexed[],
  now: number,
): Promise<Laid> {
  const { hostId, units } = plan;
  const { dayOf, startOf } = local;
  const today = dayOf(now);
  const before = await deps.state.layout(hostId);
  const last = Math.max(...indexed.map((x) => dayOf(x.meta.readUntil - 1)));
  // Days of another zone (the host's changed) are other days: everything is laid again.
  const everything =
    before === undefined || before.zone !== local.zone || indexed.some((x) => x.read.reindex);
  const affected = new Set<number>();
  if (everything) {
    for (let d = today; d <= last; d++) affected.add(d);
    for (const d of before?.days ?? []) affected.add(d);
  } else for (const x of indexed) for (const d of x.touched) affected.add(d);
  // Days gone by: their busy time is dropped rather than kept forever.
  const past = (before?.days ?? []).filter((d) => d < today);
  if (before === undefined)
    // The earlier layout: all calendar time under one source.
    for (const unit of units.ids) await deps.store.replaceBusy(hostId, unit, CALENDAR_BUSY_SOURCE, []);
  const toLay = [...affected].filter((d) => d >= today && d <= last).sort((a, b) => a - b);
  const toClear = [...new Set([...past, ...[...affected].filter((d) => d < today || d > last)])];

  // Each calendar's occurrences for those days: the indexed ones, else as stored.
  const dayRecords = new Map<string, ReadonlyMap<number, DayRecord | null>>();
  for (const x of indexed) {
    const missing = toLay.filter((d) => !x.days.has(d));
    const stored =
      x.read.reindex || missing.length === 0
        ? new Map<number, DayRecord>()
        : await deps.state.getDays(hostId, x.read.calendarId, missing);
    dayRecords.set(x.read.calendarId, new Map([...stored, ...x.days]));
  }
  // The gateway's own holds and bookings on those days: calendar time avoids their units.
  const ours = new Map<string, OccupancyEntry[]>();
  for (const range of runsOf(toLay)) {
    const occupancy = await deps.store.listOccupancy(
      hostId,
      units.ids,
      { start: startOf(range.start), end: startOf(range.end + 1) },
      now,
    );
    for (const [unit, entries] of occupancy)
      ours.set(unit, [...(ours.get(unit) ?? []), ...entries.filter((e) => e.agent)]);
  }
  const maxPerDay = plan.maxPerDay ?? DEFAULT_MAX_PER_DAY;
  const fullDays = new Map<string, number[]>();
  const conflictsByDay: Record<string, readonly SyncConflict[]> = { ...(before?.conflicts ?? {}) };
  for (const d of [...toLay, ...toClear]) delete conflictsByDay[String(d)];
  for (const d of toLay) {
    const start = startOf(d);
    const end = startOf(d + 1);
    const busy: BusyOccurrence[] = [];
    for (const x of indexed) {
      const { resourceId } = x.read;
      const record = dayRecords.get(x.read.calendarId)?.get(d) ?? [];
      if (record.length > maxPerDay) {
        fullDays.set(x.read.calendarId, [...(fullDays.get(x.read.calendarId) ?? []), d]);
        for (const unit of resourceId === undefined ? units.ids : [resourceId])
          busy.push({ start, end, resourceId: unit });
        continue;
      }
      for (const [s, e] of record)
        busy.push({ start: s, end: e, ...(resourceId !== undefined && { resourceId }) });
    }
    const avoid = new Map(
      [...ours].map(([unit, entries]) => [
        unit,
        entries.filter((o) => o.start < end && o.end > start).map((o) => ({ start: o.start, end: o.end })),
      ]),
    );
    const laid = layBusyOnUnits(units, busy, avoid);
    const found: SyncConflict[] = [];
    for (const [unit, intervals] of laid) {
      const clipped = intervals
        .map((i) => ({ start: Math.max(i.start, start), end: Math.min(i.end, end) }))
        .filter((i) => i.end > i.start);
      await deps.store.replaceBusy(hostId, unit, dayBusySource(d), clipped);
      // §5.8: calendar time that now overlaps the gateway's own hold or booking on its unit.
      for (const b of avoid.get(unit) ?? [])
        if (clipped.some((i) => i.start < b.end && i.end > b.start))
          found.push({ resourceId: unit, start: b.start, end: b.end });
    }
    if (found.length > 0) conflictsByDay[String(d)] = found;
  }
  for (const d of toClear)
    for (const unit of units.ids) await deps.store.replaceBusy(hostId, unit, dayBusySource(d), []);
  // Conflicts on days not laid now stand while their booking still holds that time.
  const conflicts = new Map<string, SyncConflict>();
  const laidNow = new Set(toLay.map(String));
  const held = await heldAmong(
    deps,
    hostId,
    Object.entries(conflictsByDay).flatMap(([day, list]) => (laidNow.has(day) ? [] : list)),
    now,
  );
  for (const [day, list] of Object.entries(conflictsByDay)) {
    const kept: SyncConflict[] = [];
    for (const c of list) {
      const key = `${c.resourceId}\u0000${c.start}\u0000${c.end}`;
      if (!laidNow.has(day) && !held.has(key)) continue;
      kept.push({ resourceId: c.resourceId, start: c.start, end: c.end });
      conflicts.set(key, { resourceId: c.resourceId, start: c.start, end: c.end });
    }
    if (kept.length > 0) conflictsByDay[day] = kept;
    else delete conflictsByDay[day];
  }
  const written = new Set([...(before?.days ?? []), ...toLay]);
  for (const d of toClear) written.delete(d);
  const layout: HostLayout = {
    zone: local.zone,
    days: [...written].sort((a, b) => a - b),
    conflicts: conflictsByDay,
  };
  await deps.state.putLayout(hostId, layout);
  return { conflicts: [...conflicts.values()], fullDays };
}

/**
 * Which of these conflicts a hold or booking of the gateway still occupies (its unit and time),
 * keyed `unit\0start\0end`. One occupancy read for them all: one read per conflict made every
 * sync cost the stored conflicts times the bookings of their days.
 */
async function heldAmong(
  deps: CalendarSyncDeps,
  hostId: string,
  list: readonly SyncConflict[],
  now: number,
): Promise<Set<string>> {
  const held = new Set<string>();
  if (list.length === 0) return held;
  const units = [...new Set(list.map((c) => c.resourceId))];
  const range = { start: Number.POSITIVE_INFINITY, end: Number.NEGATIVE_INFINITY };
  for (const c of list) {
    range.start = Math.min(range.start, c.start);
    range.end = Math.max(range.end, c.end);
  }
  const occupancy = await deps.store.listOccupancy(hostId, units, range, now);
  for (const [unit, entries] of occupancy)
    for (const e of entries) if (e.agent) held.add(`${unit}\u0000${e.start}\u0000${e.end}`);
  return held;
}

/** Sorted days as runs of consecutive days. */
function runsOf(days: readonly number[]): Array<{ start: number; end: number }> {
  const runs: Array<{ start: number; end: number }> = [];
  for (const d of days) {
    const last = runs[runs.length - 1];
    if (last !== undefined && last.end === d - 1) last.end = d;
    else runs.push({ start: d, end: d });
  }
  return runs;
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
  const hostId = reports[0]?.hostId;
  // An incomplete sync keeps the time of the last complete one (a report written before
  // lastCompleteAt existed says it by its own outcome).
  const earlier =
    hostId !== undefined && reports.some((r) => r.outcome !== "complete")
      ? await deps.state.reports(hostId)
      : [];
  const lastComplete = (r: SyncReport): number | undefined => {
    if (r.outcome === "complete") return r.at;
    const before = earlier.find((e) => e.calendarId === r.calendarId);
    return before?.lastCompleteAt ?? (before?.outcome === "complete" ? before.at : undefined);
  };
  const out = reports.map((r) => {
    const at = lastComplete(r);
    return at === undefined ? r : { ...r, lastCompleteAt: at };
  });
  for (const r of out) await deps.state.putReport(r);
  return out;
}

/** Reads one calendar's changes (nothing is stored here). */
async function readCalendar(
  deps: CalendarSyncDeps,
  plan: CalendarHostPlan,
  calendarId: string,
  resourceId: string | undefined,
  now: number,
): Promise<ReadOutcome> {
  const previous = await deps.state.getMeta(plan.hostId, calendarId);
  const window: Interval = { start: now, end: now + plan.horizonMs };
  // Its days are indexed in the host's zone: another zone indexes them again.
  const needsFull =
    previous?.cursor === undefined ||
    previous.readUntil < now + plan.horizonMs - HORIZON_SLACK_MS ||
    (previous.zone !== undefined && previous.zone !== plan.timezone);
  let restarted = false;
  let pages = 0;
  for (;;) {
    const full = needsFull || restarted;
    const kind = full ? "full" : "incremental";
    const read = await readPages(deps.sync, calendarId, window, full ? undefined : previous?.cursor);
    pages += read.pages;
    if (read.ok) {
      const got = read.value;
      // Never past the horizon this sync asked for, whatever the calendar says it read.
      const reported = Math.min(got.readUntil, window.end);
      const readUntil = full ? reported : Math.min(reported, previous?.readUntil ?? reported);
      // A full read names every event: the stored ones it does not name are gone.
      const removed = full
        ? new Set(
            previous === undefined
              ? []
              : (await deps.state.eventIds(plan.hostId, calendarId)).filter((id) => !got.events.has(id)),
          )
        : got.removed;
      return {
        ok: true,
        value: {
          calendarId,
          ...(resourceId !== undefined && { resourceId }),
          kind,
          pages,
          restarted,
          previous,
          ...(got.cursor !== undefined && { cursor: got.cursor }),
          readUntil,
          fullSyncAt: full ? now : (previous?.fullSyncAt ?? now),
          reindex: full || previous?.rebuild === true,
          changed: got.events,
          removed,
        },
      };
    }
    if (read.error.code === "cursor_expired" && !full) {
      restarted = true;
      continue;
    }
    const { code, message, reason } = read.error;
    return {
      ok: false,
      error: { kind, pages, restarted, code, message, ...(reason !== undefined && { reason }) },
    };
  }
}

interface PagesRead {
  /** Changed (or, on a full read, all) events by event id; removed ids. */
  readonly events: ReadonlyMap<string, readonly RawCalendarEvent[]>;
  readonly removed: ReadonlySet<string>;
  readonly cursor?: string;
  readonly readUntil: number;
}

interface PagesFailure {
  readonly code: string;
  readonly message: string;
  readonly reason?: string;
}

/** The pages read, or why the reading stopped; with how many pages were read either way. */
type PagesOutcome = Result<PagesRead, PagesFailure> & { readonly pages: number };

async function readPages(
  sync: CalendarSync,
  calendarId: string,
  window: Interval,
  cursor: string | undefined,
): Promise<PagesOutcome> {
  const events = new Map<string, readonly RawCalendarEvent[]>();
  const removed = new Set<string>();
  let next = cursor;
  for (let pages = 1; pages <= MAX_PAGES; pages++) {
    const page = await sync.sync({ calendarId, window, ...(next !== undefined && { cursor: next }) });
    if (!page.ok) {
      const { code, message, reason } = page.error;
      return { ok: false, pages, error: { code, message, ...(reason !== undefined && { reason }) } };
    }
    // A changed event id is reported whole: its events replace all the caller held under it.
    const changed = new Map<string, RawCalendarEvent[]>();
    for (const e of page.value.events) changed.set(e.eventId, [...(changed.get(e.eventId) ?? []), e]);
    for (const [id, group] of changed) {
      events.set(id, group);
      removed.delete(id);
    }
    for (const id of page.value.removed) {
      events.delete(id);
      removed.add(id);
    }
    next = page.value.nextCursor;
    if (page.value.complete) {
      return {
        ok: true,
        pages,
        value: {
          events,
          removed,
          readUntil: page.value.readUntil,
          ...(next !== undefined && { cursor: next }),
        },
      };
    }
    if (next === undefined) {
      return {
        ok: false,
        pages,
        error: { code: "unavailable", message: "the calendar said more pages follow but gave no cursor" },
      };
    }
  }
  return {
    ok: false,
    pages: MAX_PAGES,
    error: { code: "unavailable", message: `the calendar answered more than ${MAX_PAGES} pages` },
  };
}
