/**
 * Free time and slot starts for a calendar-fallback host (docs/ARCHITECTURE.md, Calendar sync;
 * SchCP §4.1), pure: a resource's working hours in the host's IANA zone (weekly-hours.ts, so
 * periods past midnight and DST behave as everywhere else) minus busy time, then the starts of
 * slots that fit whole, buffer included.
 *
 * Both are linear sweeps over sorted intervals, so availability is served from the synced busy
 * time without expanding any recurrence again.
 */
import { addDays, instantToWallClock, isValidTimeZone } from "../protocol/time/index.js";
import { BudgetCache } from "./budget-cache.js";
import { mergeIntervals, type Interval } from "./interval.js";
import { ianaZone } from "./recurrence/zones.js";
import { expandWeeklyHours, type WeeklyHours } from "./weekly-hours.js";

const DAY = 86_400_000;

/**
 * Expansions by hours (the same object), zone and window. Every host has its own hours, so
 * this grows with the hosts queried: it is kept within a budget of intervals (about 48 bytes
 * each), least recently used first out, and an expansion unused for ten minutes is let go.
 */
export const workingIntervalsCache = new BudgetCache<string, readonly Interval[]>({
  maxWeight: 200_000,
  idleMs: 10 * 60_000,
  weigh: (intervals) => intervals.length + 1,
});
/** A number per hours object, for the cache's keys (the objects themselves are not kept). */
const hoursIds = new WeakMap<WeeklyHours, number>();
let nextHoursId = 0;

/**
 * Working intervals of `hours` in `zone` clipped to `window`. Memoized per hours object, zone
 * and window, since every resource sharing a schedule asks the same question on every query.
 */
export function workingIntervals(hours: WeeklyHours, zone: string, window: Interval): readonly Interval[] {
  if (!isValidTimeZone(zone)) throw new RangeError(`not an IANA time zone: ${JSON.stringify(zone)}`);
  if (window.end <= window.start) return [];
  let id = hoursIds.get(hours);
  if (id === undefined) hoursIds.set(hours, (id = nextHoursId++));
  const key = `${id} ${zone} ${window.start} ${window.end}`;
  const known = workingIntervalsCache.get(key);
  if (known !== undefined) return known;
  const first = instantToWallClock(window.start, zone);
  // From the day before (a period may run past midnight into the window) to a day after.
  const from = addDays({ year: first.year, month: first.month, day: first.day }, -1);
  const days = Math.ceil((window.end - window.start) / DAY) + 2;
  const frame = ianaZone(zone);
  const open = expandWeeklyHours(hours, from, days, (w) =>
    frame.toInstant(Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second, w.millisecond)),
  );
  const clipped = clip(open, window);
  workingIntervalsCache.set(key, clipped);
  return clipped;
}

function clip(intervals: readonly Interval[], window: Interval): Interval[] {
  const out: Interval[] = [];
  for (const i of intervals) {
    const start = Math.max(i.start, window.start);
    const end = Math.min(i.end, window.end);
    if (end > start) out.push({ start, end });
  }
  return out;
}

/** `open` minus `busy` (both any order; the answer sorted and merged). */
export function subtractIntervals(open: readonly Interval[], busy: readonly Interval[]): Interval[] {
  const b = mergeIntervals(busy);
  const out: Interval[] = [];
  let j = 0;
  for (const o of mergeIntervals(open)) {
    let cursor = o.start;
    while (j < b.length && b[j]!.end <= cursor) j++;
    for (let k = j; k < b.length && b[k]!.start < o.end; k++) {
      if (b[k]!.start > cursor) out.push({ start: cursor, end: b[k]!.start });
      cursor = Math.max(cursor, b[k]!.end);
    }
    if (cursor < o.end) out.push({ start: cursor, end: o.end });
  }
  return out;
}

export interface FreeQuery {
  /** The resource's weekly hours, read in `zone` (the host's IANA zone). */
  readonly hours: WeeklyHours;
  readonly zone: string;
  /** Busy time (busyIntervals of the synced calendar, holds, bookings). */
  readonly busy: readonly Interval[];
  readonly window: Interval;
}

/** Free intervals of one resource in the window: working hours minus busy time. */
export function freeIntervals(q: FreeQuery): Interval[] {
  return subtractIntervals(workingIntervals(q.hours, q.zone, q.window), q.busy);
}

export interface SlotRules {
  /** The service's duration, ms (> 0). */
  readonly duration: number;
  /** SchCP buffer_after, ms: must be free too (§4.1 "including the buffer"). */
  readonly buffer?: number;
  /** The grid between starts, ms (> 0). */
  readonly granularity: number;
  /** An instant on the grid (the core anchors at local midnight); default the epoch. */
  readonly anchor?: number;
  /** The clock, epoch ms; starts before now + minNotice are not offered. */
  readonly now: number;
  readonly minNotice?: number;
  /** Starts later than now + horizon are not offered (max_advance, or the read horizon). */
  readonly horizon?: number;
}

/** Grid starts whose [start, start + duration + buffer) lies inside one free interval. */
export function slotStarts(free: readonly Interval[], rules: SlotRules): number[] {
  const { duration, granularity } = rules;
  if (!(duration > 0) || !(granularity > 0))
    throw new RangeError("duration and granularity must be positive");
  const need = duration + (rules.buffer ?? 0);
  const anchor = rules.anchor ?? 0;
  const earliest = rules.now + (rules.minNotice ?? 0);
  const latest = rules.horizon === undefined ? Infinity : rules.now + rules.horizon;
  const starts: number[] = [];
  for (const f of mergeIntervals(free)) {
    const from = Math.max(f.start, earliest);
    let s = anchor + Math.ceil((from - anchor) / granularity) * granularity;
    for (; s + need <= f.end && s <= latest; s += granularity) starts.push(s);
  }
  return starts;
}
