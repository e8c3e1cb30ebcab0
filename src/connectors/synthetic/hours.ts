/**
 * Working hours as the synthetic platform sees them (SchCP §4.1 "within its working hours,
 * for the whole interval including the buffer"; §4.2 "until_close"), with exactly the
 * semantics of src/holds/working-hours.ts, so the platform and the gateway's hold store
 * never disagree about when a resource works.
 *
 * Two views:
 * - directHours: isWithinWorkingHours / workingStretchEnd themselves, for one slot
 *   (create, move).
 * - rangeHours: for an availability grid. Asking isWithinWorkingHours for each of up to
 *   3,000 starts × every resource rebuilds days of wall-clock periods per call, so the
 *   merged working stretches over the range are computed once per
 *   distinct weekly schedule — with workingStretchEnd at each period's opening, so they are
 *   the module's own stretches — and each start is a binary search. A property test checks
 *   that both views agree on every grid start across DST changes.
 */
import type { Interval } from "../../holds/port.js";
import { isWithinWorkingHours, workingStretchEnd, type WeeklyHours } from "../../holds/working-hours.js";
import {
  addDays,
  instantToWallClock,
  isoWeekday,
  wallClockToInstant,
  type LocalDate,
} from "../../protocol/time/index.js";
import type { CatalogResource } from "../port.js";

export interface HoursView {
  /** The resource works for the whole interval (§4.1). */
  within(resource: CatalogResource, interval: Interval): boolean;
  /** §4.2 until_close: end of the working stretch holding `at` (cut a week later), or undefined. */
  stretchEnd(resource: CatalogResource, at: number): number | undefined;
}

const DAY = 86_400_000;
/** working-hours.ts cuts a stretch that never closes a week after `at`. */
export const STRETCH_CAP_MS = 7 * DAY;

export function directHours(zone: string): HoursView {
  return {
    within: (r, interval) => isWithinWorkingHours(r.hours, zone, interval),
    stretchEnd: (r, at) => workingStretchEnd(r.hours, zone, at),
  };
}

/**
 * Exact for intervals inside `range` (and stretch ends of starts at least a week before
 * its end); anything else is answered by the direct functions.
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
      const s = containing(stretchesOf(r), at);
      return s === undefined ? undefined : Math.min(s.end, at + STRETCH_CAP_MS);
    },
  };
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

const localDate = (ms: number, zone: string): LocalDate => {
  const w = instantToWallClock(ms, zone);
  return { year: w.year, month: w.month, day: w.day };
};

/**
 * Merged working stretches (touching periods join, as in working-hours.ts) that reach into
 * `range`. Every period that covers a moment of the range opens on that moment's local date
 * or the day before (a period lasts at most 24 h), so openings from the day before the
 * range's first date suffice.
 */
export function workingStretches(hours: WeeklyHours, zone: string, range: Interval): Interval[] {
  if (!(range.end > range.start)) return [];
  const first = addDays(localDate(range.start, zone), -1);
  const dayCount = Math.round((range.end - range.start) / DAY) + 2;
  const byOpen = [...hours].sort((a, b) => a.open.localeCompare(b.open));
  const out: Interval[] = [];
  let reached = -Infinity;
  for (let i = 0; i <= dayCount; i++) {
    const date = addDays(first, i);
    const weekday = isoWeekday(date);
    for (const p of byOpen) {
      if (p.day !== weekday) continue;
      const opened = wallClockToInstant(
        {
          ...date,
          hour: Number(p.open.slice(0, 2)),
          minute: Number(p.open.slice(3, 5)),
          second: 0,
          millisecond: 0,
        },
        zone,
        "compatible",
      );
      if (!opened.ok || opened.value >= range.end || opened.value < reached) continue;
      const end = stretchEndBeyond(hours, zone, opened.value, range.end);
      if (end === undefined) continue;
      reached = end;
      if (end > range.start) out.push({ start: opened.value, end });
    }
  }
  return merge(out);
}

/** workingStretchEnd, continued past its one-week cut while the stretch goes on into the range. */
function stretchEndBeyond(hours: WeeklyHours, zone: string, at: number, until: number): number | undefined {
  let from = at;
  let end = workingStretchEnd(hours, zone, from);
  while (end !== undefined && end === from + STRETCH_CAP_MS && end < until) {
    from = end - 1;
    const next = workingStretchEnd(hours, zone, from);
    if (next === undefined || next <= end) break;
    end = next;
  }
  return end;
}

function merge(intervals: Interval[]): Interval[] {
  intervals.sort((a, b) => a.start - b.start);
  const merged: Interval[] = [];
  for (const r of intervals) {
    const last = merged[merged.length - 1];
    if (last !== undefined && r.start <= last.end)
      merged[merged.length - 1] = { start: last.start, end: Math.max(last.end, r.end) };
    else merged.push(r);
  }
  return merged;
}
