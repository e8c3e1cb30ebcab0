/**
 * Working hours as the synthetic platform computes them: its own code, like any outside
 * platform's, never the gateway's (src/calendar), so a test can catch the two disagreeing
 * (test/connectors/synthetic/hours.test.ts checks them against each other across DST changes).
 *
 * The platform's rules (SchCP §4.1 "within its working hours, for the whole interval including
 * the buffer"; §4.2 "until_close"): a resource's weekly periods { day, open, close } are local
 * "HH:MM" times in the organization's zone; a close at or before the open runs past midnight,
 * "24:00" closes at the next midnight; local times become instants "compatible" (a gap moves
 * forward, an overlap takes the earlier instant); periods that touch form one working stretch;
 * an until_close stretch that never closes is cut a week after its start.
 *
 * Two views:
 * - directHours: for one slot (create, move), expanding the few days around it.
 * - rangeHours: for an availability grid, the stretches over the whole range computed once per
 *   distinct weekly schedule, each start a binary search.
 */
import { addDays, instantToWallClock, isoWeekday, wallClockToInstant } from "../../protocol/time/index.js";
import type { LocalDate } from "../../protocol/time/index.js";
import type { CatalogResource, Interval, WeeklyPeriod } from "../port.js";

export interface HoursView {
  /** The resource works for the whole interval (§4.1). */
  within(resource: CatalogResource, interval: Interval): boolean;
  /** §4.2 until_close: end of the working stretch holding `at` (cut a week later), or undefined. */
  stretchEnd(resource: CatalogResource, at: number): number | undefined;
}

const DAY = 86_400_000;
/** A stretch that never closes is cut a week after `at`. */
export const STRETCH_CAP_MS = 7 * DAY;

const minutes = (hhmm: string): number => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

const localDate = (ms: number, zone: string): LocalDate => {
  const w = instantToWallClock(ms, zone);
  return { year: w.year, month: w.month, day: w.day };
};

/** The instant `mins` minutes past the local midnight of `date` (1440 and on: the next days). */
function localInstant(date: LocalDate, mins: number, zone: string): number | undefined {
  const d = addDays(date, Math.floor(mins / 1440));
  const m = mins % 1440;
  const r = wallClockToInstant(
    { ...d, hour: Math.floor(m / 60), minute: m % 60, second: 0, millisecond: 0 },
    zone,
    "compatible",
  );
  return r.ok ? r.value : undefined;
}

/** A period's [open, close) on one local date. */
function periodOn(p: WeeklyPeriod, date: LocalDate, zone: string): Interval | undefined {
  const open = minutes(p.open);
  const rawClose = minutes(p.close);
  const close = rawClose <= open ? rawClose + 1440 : rawClose;
  const start = localInstant(date, open, zone);
  const end = localInstant(date, close, zone);
  return start !== undefined && end !== undefined && end > start ? { start, end } : undefined;
}

/**
 * Merged working stretches reaching into `range`. A period lasts at most 24 hours, so every
 * period covering a moment of the range opens on that moment's local date or the day before;
 * periods opening at or after the range's end are left out (a stretch reaching the end is
 * known to last at least that long).
 */
export function workingStretches(hours: readonly WeeklyPeriod[], zone: string, range: Interval): Interval[] {
  if (!(range.end > range.start)) return [];
  const first = addDays(localDate(range.start, zone), -1);
  const last = localDate(range.end, zone);
  const periods: Interval[] = [];
  for (let date = first, i = 0; i < 400; date = addDays(date, 1), i++) {
    const weekday = isoWeekday(date);
    for (const p of hours) {
      if (p.day !== weekday) continue;
      const w = periodOn(p, date, zone);
      if (w !== undefined && w.start < range.end) periods.push(w);
    }
    if (date.year === last.year && date.month === last.month && date.day === last.day) break;
  }
  periods.sort((a, b) => a.start - b.start);
  const out: Interval[] = [];
  for (const w of periods) {
    const prev = out[out.length - 1];
    if (prev !== undefined && w.start <= prev.end)
      out[out.length - 1] = { start: prev.start, end: Math.max(prev.end, w.end) };
    else out.push(w);
  }
  return out.filter((s) => s.end > range.start);
}

/** The stretch with start ≤ at < end, by binary search over sorted, disjoint stretches. */
function containing(stretches: readonly Interval[], at: number): Interval | undefined {
  let lo = 0;
  let hi = stretches.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const s = stretches[mid] as Interval;
    if (at < s.start) hi = mid - 1;
    else if (at >= s.end) lo = mid + 1;
    else return s;
  }
  return undefined;
}

/** Stretch ends are exact up to `range.end`; past it only "at least this long" is known. */
function endFrom(stretches: readonly Interval[], at: number): number | undefined {
  const s = containing(stretches, at);
  return s === undefined ? undefined : Math.min(s.end, at + STRETCH_CAP_MS);
}

export function directHours(zone: string): HoursView {
  return {
    within(r, interval) {
      if (!(interval.end > interval.start)) return false;
      const s = containing(workingStretches(r.hours, zone, interval), interval.start);
      return s !== undefined && interval.end <= s.end;
    },
    stretchEnd: (r, at) =>
      endFrom(workingStretches(r.hours, zone, { start: at, end: at + STRETCH_CAP_MS }), at),
  };
}

/**
 * Exact for intervals inside `range` (and stretch ends of starts at least a week before its
 * end); anything else is answered by directHours.
 */
export interface RangeHoursView extends HoursView {
  /** The resource's merged working stretches reaching into the range, sorted. */
  stretches(resource: CatalogResource): readonly Interval[];
}

export function rangeHours(zone: string, range: Interval): RangeHoursView {
  const cache = new Map<string, readonly Interval[]>();
  const direct = directHours(zone);
  const stretchesOf = (r: CatalogResource): readonly Interval[] => {
    const key = JSON.stringify(r.hours);
    let s = cache.get(key);
    if (s === undefined) {
      s = workingStretches(r.hours, zone, range);
      cache.set(key, s);
    }
    return s;
  };
  return {
    stretches: stretchesOf,
    within(r, interval) {
      if (interval.start < range.start || interval.end > range.end) return direct.within(r, interval);
      if (interval.end <= interval.start) return false;
      const s = containing(stretchesOf(r), interval.start);
      return s !== undefined && interval.end <= s.end;
    },
    stretchEnd(r, at) {
      if (at < range.start || at + STRETCH_CAP_MS > range.end) return direct.stretchEnd(r, at);
      return endFrom(stretchesOf(r), at);
    },
  };
}
