/**
 * The expansion engine, pure: components (model.ts) → occurrences overlapping a window.
 *
 * Per UID, of the copies with the highest SEQUENCE (RFC 5545 §3.8.7.4), each master (no RECURRENCE-ID) is a recurrence set (RFC 5545 §3.8.5): DTSTART
 * (always the first instance, unless UNTIL is before it: such a series is read as deleted,
 * fixtures/recurrence R19), the RRULE's instances (rrule.ts, in the series' wall clock so DST
 * never moves them), RDATEs (DATE, DATE-TIME or PERIOD), minus EXDATEs in any form (matched
 * by instant for timed series, by date for all-day ones). Components with a RECURRENCE-ID
 * replace the instance whose original start they name: an occurrence at their own time (so one
 * moved into the window from far outside it is found without expanding that far), the
 * original time freed. RANGE=THISANDFUTURE also moves every later instance by the same
 * wall-clock shift and gives it the override's length, status and transparency. An override
 * is an occurrence even when its RECURRENCE-ID names no instance, or its series is missing
 * (Google shares single instances): it is what the calendar shows, so it is busy time.
 *
 * Bounds: an RRULE without COUNT skips straight to the window; one with COUNT walks from
 * DTSTART. A series walks at most MAX_PERIODS periods and keeps at most `maxPerSeries`
 * occurrences, a call at most `maxTotal`; past a bound the answer is `complete: false`, holding
 * the earliest occurrences, and `truncatedAt` says up to when it is whole. An RRULE or value that cannot be read leaves its series at DTSTART
 * and the answer incomplete.
 */
import { DAY, type Component, type EventStatus, type NominalDuration, type TimeValue } from "./model.js";
import { expandRule, parseRule, type Rule } from "./rrule.js";
import { UTC, type Zone } from "./zones.js";
import type { Warn } from "./from-ics.js";

export interface Occurrence {
  readonly uid: string;
  readonly eventId: string;
  /** Epoch ms. */
  readonly start: number;
  readonly end: number;
  readonly allDay: boolean;
  /** The instance's original start (epoch ms) for an instance of a series. */
  readonly recurrenceId?: number;
  readonly status: EventStatus;
  readonly transparent: boolean;
}

export interface ExpandOptions {
  /** Epoch ms, from < to. */
  readonly from: number;
  readonly to: number;
  /** The zone floating times and all-day dates are read in. */
  readonly floating: Zone;
  readonly maxPerSeries: number;
  readonly maxTotal: number;
  /** Where a series that cannot be expanded is reported. */
  readonly warn?: Warn;
}

export interface Expansion {
  readonly occurrences: Occurrence[];
  readonly complete: boolean;
  /**
   * When a count bound cut the answer: the earliest start of an occurrence left out. Every
   * occurrence that starts earlier is in the answer.
   */
  readonly truncatedAt?: number;
  /** Each series its bound cut, by UID: the start of its first occurrence left out. */
  readonly cut?: ReadonlyMap<string, number>;
  /** The series that could not be expanded and were left out, by UID. */
  readonly skipped?: ReadonlySet<string>;
}

const HOUR = 3_600_000;

/** Most periods (years, months, weeks, days, hours…) one RRULE may walk. */
const MAX_PERIODS = 100_000;

/** RFC 4791 §9.9 time-range test: overlaps [from, to); a zero-length one when from ≤ start < to. */
const inWindow = (start: number, end: number, from: number, to: number): boolean =>
  start < to && (end > from || (end === start && start >= from));

const byStart = (a: Occurrence, b: Occurrence): number =>
  a.start - b.start || a.end - b.end || (a.uid < b.uid ? -1 : a.uid > b.uid ? 1 : 0);

export function expandComponents(components: readonly Component[], options: ExpandOptions): Expansion {
  const byUid = new Map<string, { masters: Component[]; overrides: Component[] }>();
  for (const c of components) {
    const group = byUid.get(c.uid) ?? { masters: [], overrides: [] };
    (c.recurrenceId === undefined ? group.masters : group.overrides).push(c);
    byUid.set(c.uid, group);
  }
  let complete = true;
  let truncatedAt = Infinity;
  const cut = new Map<string, number>();
  const skipped = new Set<string>();
  const all: Occurrence[] = [];
  for (const [uid, group] of byUid) {
    const found: Occurrence[] = [];
    try {
      const masters = latest(group.masters);
      const overrides = latestOverrides(group.overrides, options.floating);
      if (masters.length === 0) {
        // Exceptions whose series the calendar did not give us (Google shares single instances).
        for (const o of overrides) pushOverride(found, o, undefined, options);
      }
      // Copies with the same SEQUENCE (a calendar's mistake): each expands, the overrides count once.
      for (const [i, master] of masters.entries()) {
        const r = expandSeries(master, overrides, options, found, i === 0);
        complete &&= r;
      }
    } catch (e) {
      // Values past what the arithmetic can hold: this series is lost, never the calendar.
      complete = false;
      found.length = 0;
      skipped.add(uid);
      options.warn?.("calendar: a series cannot be expanded; it is skipped", {
        uid,
        error: e instanceof Error ? e.message : String(e),
      });
    }
    const unique = distinct(found).sort(byStart);
    if (unique.length > options.maxPerSeries) {
      complete = false;
      const first = (unique[options.maxPerSeries] as Occurrence).start;
      truncatedAt = Math.min(truncatedAt, first);
      cut.set(uid, first);
      unique.length = options.maxPerSeries;
    }
    for (const o of unique) all.push(o);
  }
  all.sort(byStart);
  if (all.length > options.maxTotal) {
    complete = false;
    truncatedAt = Math.min(truncatedAt, (all[options.maxTotal] as Occurrence).start);
    all.length = options.maxTotal;
  }
  return {
    occurrences: all,
    complete,
    ...(Number.isFinite(truncatedAt) && { truncatedAt }),
    ...(cut.size > 0 && { cut }),
    ...(skipped.size > 0 && { skipped }),
  };
}

const sequenceOf = (c: Component): number => c.sequence ?? 0;

/**
 * The copies with the highest SEQUENCE: a series saved again as a copy (RFC 5545 §3.8.7.4: the
 * SEQUENCE is incremented with each significant revision) supersedes the older copy, its
 * removed instances included (fixtures/ics-robustness issue_148).
 */
function latest(copies: readonly Component[]): Component[] {
  const top = Math.max(...copies.map(sequenceOf));
  return copies.filter((c) => sequenceOf(c) === top);
}

/** Per RECURRENCE-ID, the overrides with the highest SEQUENCE (RFC 5545 §3.8.7.4). */
function latestOverrides(overrides: readonly Component[], floating: Zone): Component[] {
  const byId = new Map<number, Component[]>();
  for (const o of overrides) {
    const key = instantOf(o.recurrenceId!, floating);
    byId.set(key, [...(byId.get(key) ?? []), o]);
  }
  return [...byId.values()].flatMap(latest);
}

/** One of each occurrence: an override written twice alike (fixtures/ics-robustness issue_164) counts once. */
function distinct(occurrences: readonly Occurrence[]): Occurrence[] {
  const seen = new Set<string>();
  return occurrences.filter((o) => {
    const key = `${o.start}/${o.end}/${o.recurrenceId ?? ""}/${o.status ?? ""}/${o.transparent}/${o.allDay}/${o.eventId}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

const floatingOf = (v: TimeValue, floating: Zone): Zone => (v.date ? floating : v.zone);
const instantOf = (v: TimeValue, floating: Zone): number => floatingOf(v, floating).toInstant(v.local);

/** The end of an instance starting at `local` (in `zone`), from a component's DTEND/DURATION. */
function lengthOf(
  start: TimeValue,
  end: TimeValue | undefined,
  duration: NominalDuration | undefined,
  floating: Zone,
): (local: number, zone: Zone) => number {
  if (duration !== undefined) return (l, z) => z.toInstant(l + duration.days * DAY) + duration.ms;
  if (end !== undefined) {
    const sameFrame = end.date === start.date && (end.date || (!start.date && end.zone === start.zone));
    if (sameFrame) {
      const delta = end.local - start.local;
      return (l, z) => z.toInstant(l + delta);
    }
    const exact = instantOf(end, floating) - instantOf(start, floating);
    return (l, z) => z.toInstant(l) + exact;
  }
  return start.date ? (l, z) => z.toInstant(l + DAY) : (l, z) => z.toInstant(l);
}

const atLeast = (start: number, end: number): number => Math.max(start, end);

function pushOverride(
  out: Occurrence[],
  o: Component,
  recurrenceId: number | undefined,
  opt: ExpandOptions,
): void {
  const zone = floatingOf(o.start, opt.floating);
  const start = zone.toInstant(o.start.local);
  const end = atLeast(start, lengthOf(o.start, o.end, o.duration, opt.floating)(o.start.local, zone));
  if (!inWindow(start, end, opt.from, opt.to)) return;
  const rid =
    recurrenceId ?? (o.recurrenceId === undefined ? undefined : instantOf(o.recurrenceId, opt.floating));
  out.push({
    uid: o.uid,
    eventId: o.eventId,
    start,
    end,
    allDay: o.start.date,
    ...(rid !== undefined && { recurrenceId: rid }),
    status: o.status,
    transparent: o.transparent,
  });
}

/**
 * Expands one master into `out`, its overrides too when `withOverrides`; false when a bound or
 * bad data cut it short.
 */
function expandSeries(
  master: Component,
  overrides: readonly Component[],
  opt: ExpandOptions,
  out: Occurrence[],
  withOverrides: boolean,
): boolean {
  const allDay = master.start.date;
  const zone = floatingOf(master.start, opt.floating);
  const length = lengthOf(master.start, master.end, master.duration, opt.floating);
  const recurring = master.rrules.length > 0 || master.rdates.length > 0;
  if (!recurring) {
    const at = instantOf(master.start, opt.floating);
    const replaced = overrides.some((o) => instantOf(o.recurrenceId!, opt.floating) === at);
    if (!replaced) pushOverride(out, master, undefined, opt);
    // Overrides of a single event still replace it when they name its start.
    if (withOverrides) for (const o of overrides) pushOverride(out, o, undefined, opt);
    return true;
  }
  /**
   * Where a value written in any form falls in this series' frame. For an all-day series, a
   * date-time is taken at its date: as written when it has a TZID or floats (Exchange writes
   * RECURRENCE-ID;TZID=…:20200528T000000), in the floating zone when it is UTC or an offset
   * (Microsoft Graph's originalStart is UTC).
   */
  const localOf = (v: TimeValue): number => {
    if (!allDay) return v.date ? v.local : zone.toLocal(instantOf(v, opt.floating));
    const absolute = !v.date && (v.zone === UTC || v.zone.id.startsWith("UTC"));
    const wall = absolute ? opt.floating.toLocal(instantOf(v, opt.floating)) : v.local;
    return Math.floor(wall / DAY) * DAY;
  };
  const keyOf = (local: number): number => (allDay ? local : zone.toInstant(local));
  /** The key of a written value: its date for an all-day series, else its instant. */
  const keyOfValue = (v: TimeValue): number => (allDay ? localOf(v) : instantOf(v, opt.floating));
  const dateOnly = (v: TimeValue): boolean => !allDay && v.date;

  // EXDATE: exact keys, and whole dates for a DATE EXDATE on a timed series.
  const exKeys = new Set<number>();
  const exDates = new Set<number>();
  for (const v of master.exdates) (dateOnly(v) ? exDates : exKeys).add(dateOnly(v) ? v.local : keyOfValue(v));

  const single = new Map<number, Component>();
  const singleDates = new Map<number, Component>();
  const future: { key: number; shift: number; o: Component }[] = [];
  for (const o of overrides) {
    const rid = o.recurrenceId!;
    if (dateOnly(rid)) singleDates.set(rid.local, o);
    else {
      const ridLocal = localOf(rid);
      single.set(keyOfValue(rid), o);
      if (o.thisAndFuture) future.push({ key: keyOfValue(rid), shift: localOf(o.start) - ridLocal, o });
    }
  }
  future.sort((a, b) => a.key - b.key);

  // How far outside the window an original start may lie and still land in it.
  const nominal = (d: NominalDuration | undefined): number =>
    d === undefined ? 0 : Math.abs(d.days) * DAY + Math.abs(d.ms);
  const spanOf = (c: Component): number =>
    c.duration !== undefined
      ? nominal(c.duration)
      : c.end !== undefined
        ? Math.abs(instantOf(c.end, opt.floating) - instantOf(c.start, opt.floating))
        : c.start.date
          ? DAY
          : 0;
  const margin = Math.max(
    spanOf(master),
    ...future.map((f) => Math.abs(f.shift) + spanOf(f.o)),
    ...master.rdates.map(
      (r) => (r.end === undefined ? 0 : Math.abs(r.end.local - r.start.local)) + nominal(r.duration),
    ),
  );
  // Three hours either side cover any change of UTC offset (DST moves clocks by up to two).
  const after = zone.toLocal(opt.from - margin) - 3 * HOUR;
  const before = zone.toLocal(opt.to + margin) + 3 * HOUR;

  let complete = true;
  const instances = new Map<number, { local: number; rdate?: (typeof master.rdates)[number] }>();
  let startStopped = false;
  for (const text of master.rrules) {
    let rule: Rule;
    try {
      rule = parseRule(text);
    } catch {
      complete = false;
      continue;
    }
    // A DATE series has no time of day: BYHOUR, BYMINUTE and BYSECOND MUST NOT be given with
    // one (RFC 5545 §3.3.10) and are ignored, so a date never occurs twice.
    if (allDay) rule = withoutTimes(rule);
    const stop = untilTest(rule, allDay, zone, opt.floating);
    if (stop(master.start.local)) startStopped = true;
    const r = expandRule(rule, master.start.local, stop, { after, before, maxPeriods: MAX_PERIODS });
    complete &&= r.complete;
    for (const t of r.starts) {
      const l = allDay ? Math.floor(t / DAY) * DAY : t;
      instances.set(keyOf(l), { local: l });
    }
  }
  if (!startStopped && master.start.local >= after && master.start.local <= before)
    instances.set(keyOf(master.start.local), { local: master.start.local });
  for (const r of master.rdates) {
    const local = allDay
      ? localOf(r.start)
      : r.start.date
        ? r.start.local + (((master.start.local % DAY) + DAY) % DAY)
        : localOf(r.start);
    if (local >= after && local <= before) instances.set(keyOf(local), { local, rdate: r });
  }

  for (const [key, { local, rdate }] of instances) {
    if (exKeys.has(key) || exDates.has(Math.floor(local / DAY) * DAY)) continue;
    if (single.has(key) || singleDates.has(Math.floor(local / DAY) * DAY)) continue;
    let f: (typeof future)[number] | undefined;
    for (const x of future) if (x.key <= key) f = x;
    const recurrenceId = allDay ? zone.toInstant(local) : key;
    let start: number;
    let end: number;
    let status = master.status;
    let transparent = master.transparent;
    if (f !== undefined) {
      const shifted = local + f.shift;
      start = zone.toInstant(shifted);
      end = lengthOf(f.o.start, f.o.end, f.o.duration, opt.floating)(shifted, zone);
      status = f.o.status;
      transparent = f.o.transparent;
    } else {
      start = allDay ? zone.toInstant(local) : key;
      end =
        rdate !== undefined && (rdate.end !== undefined || rdate.duration !== undefined)
          ? lengthOf(rdate.start, rdate.end, rdate.duration, opt.floating)(local, zone)
          : length(local, zone);
    }
    end = atLeast(start, end);
    if (!inWindow(start, end, opt.from, opt.to)) continue;
    out.push({
      uid: master.uid,
      eventId: master.eventId,
      start,
      end,
      allDay,
      recurrenceId,
      status,
      transparent,
    });
  }
  for (const o of withOverrides ? overrides : []) {
    const rid = o.recurrenceId!;
    pushOverride(
      out,
      o,
      allDay || dateOnly(rid) ? zone.toInstant(dateOnly(rid) ? rid.local : localOf(rid)) : keyOfValue(rid),
      opt,
    );
  }
  return complete;
}

function withoutTimes(rule: Rule): Rule {
  const { bySecond: _s, byMinute: _m, byHour: _h, ...rest } = rule;
  return rest;
}

/** UNTIL as a test on the series' floating times (inclusive; RFC 5545 §3.3.10). */
function untilTest(rule: Rule, allDay: boolean, zone: Zone, floating: Zone): (t: number) => boolean {
  const u = rule.until;
  if (u === undefined) return () => false;
  if (u.date) return (t) => Math.floor(t / DAY) * DAY > u.local;
  if (allDay) {
    // A DATE series with a DATE-TIME UNTIL (Exchange): the date UNTIL falls on, in the floating zone.
    const day = Math.floor((u.utc ? floating.toLocal(u.local) : u.local) / DAY) * DAY;
    return (t) => t > day;
  }
  if (u.utc) return (t) => zone.toInstant(t) > u.local;
  return (t) => t > u.local;
}
