/**
 * Working hours of a resource (SchCP §4.1: "free, and within its working hours, for the
 * whole interval including the buffer"; §4.2 set_aside "until_close"), pure.
 *
 * Hours are weekly periods in the resource's IANA zone: { day: ISO weekday 1..7, open,
 * close } as "HH:MM" local times. A close at or before the open continues past midnight
 * into the next day (Fri 22:00–02:00 ends Saturday 02:00; open = close is 24 hours), and
 * "24:00" closes at the following midnight. Local times become instants through
 * src/protocol/time with "compatible" disambiguation: an opening inside a spring-forward
 * gap moves forward by the gap, one inside a fall-back overlap takes the earlier instant,
 * so a DST day's period is as long as the clocks on the wall say it is.
 */
import { err, fieldError, ok, childPointer, type Result } from "../protocol/result.js";
import {
  addDays,
  instantToWallClock,
  isoWeekday,
  isValidTimeZone,
  wallClockToInstant,
  type IsoWeekday,
  type LocalDate,
  type WallClock,
} from "../protocol/time/index.js";
import type { Interval, Requirement, ResourceCandidate } from "./port.js";

export interface WorkingPeriod {
  readonly day: IsoWeekday;
  readonly open: string;
  readonly close: string;
}

export type WeeklyHours = readonly WorkingPeriod[];

/** A resource as the host configured it (§4.1): type, capacity, zone and hours. */
export interface WorkingResource {
  readonly id: string;
  readonly type: string;
  readonly capacity: number;
  readonly zone: string;
  readonly hours: WeeklyHours;
}

/** Longest interval examined, so a bad request cannot make us walk years of calendar. */
const MAX_SPAN_DAYS = 62;
/** How far until_close looks for the end of a stretch that never closes (24/7 resources). */
const STRETCH_LOOKAHEAD_DAYS = 7;
const OPEN = /^(?:[01]\d|2[0-3]):[0-5]\d$/;
const CLOSE = /^(?:(?:[01]\d|2[0-3]):[0-5]\d|24:00)$/;
const DAY_MS = 86_400_000;

/** Validates configured hours, naming the field of the first problem. */
export function parseWorkingHours(value: unknown, field = ""): Result<WeeklyHours> {
  if (!Array.isArray(value))
    return err(fieldError("invalid_type", field, "working hours are a list of periods"));
  const periods: WorkingPeriod[] = [];
  for (const [i, p] of (value as unknown[]).entries()) {
    const at = childPointer(field, i);
    if (typeof p !== "object" || p === null)
      return err(fieldError("invalid_type", at, "a period is an object"));
    const { day, open, close } = p as Record<string, unknown>;
    if (typeof day !== "number" || !Number.isInteger(day) || day < 1 || day > 7) {
      return err(
        fieldError("invalid_day", childPointer(at, "day"), "day is an ISO weekday, 1 (Monday) to 7"),
      );
    }
    if (typeof open !== "string" || !OPEN.test(open)) {
      return err(fieldError("invalid_time", childPointer(at, "open"), 'open is "HH:MM", 00:00 to 23:59'));
    }
    if (typeof close !== "string" || !CLOSE.test(close)) {
      return err(fieldError("invalid_time", childPointer(at, "close"), 'close is "HH:MM", 00:00 to 24:00'));
    }
    periods.push({ day: day as IsoWeekday, open, close });
  }
  return ok(periods);
}

const minutesOf = (hhmm: string): number => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

/** A local date and minutes past its midnight (1440 and on run into the next day). */
function wallClockAt(date: LocalDate, minutes: number): WallClock {
  const d = minutes >= 1440 ? addDays(date, 1) : date;
  const m = minutes % 1440;
  return { ...d, hour: Math.floor(m / 60), minute: m % 60, second: 0, millisecond: 0 };
}

const dateAt = (epochMs: number, zone: string): LocalDate => {
  const w = instantToWallClock(epochMs, zone);
  return { year: w.year, month: w.month, day: w.day };
};

/** Working intervals that start on local dates from..to (inclusive), merged where they touch. */
function workingIntervals(hours: WeeklyHours, zone: string, from: LocalDate, days: number): Interval[] {
  return expandWeeklyHours(hours, from, days, (w) => {
    const r = wallClockToInstant(w, zone, "compatible");
    return r.ok ? r.value : undefined;
  });
}

/**
 * The working intervals of periods that open on the local dates from .. from + days, merged
 * where they touch. `instant` places a local wall-clock time (DST gaps "compatible"); a
 * caller expanding many times over one zone passes a memoized one (booking/holds/hours-index).
 */
export function expandWeeklyHours(
  hours: WeeklyHours,
  from: LocalDate,
  days: number,
  instant: (w: WallClock) => number | undefined,
): Interval[] {
  const raw: Interval[] = [];
  for (let i = 0; i <= days; i++) {
    const date = addDays(from, i);
    const weekday = isoWeekday(date);
    for (const p of hours) {
      if (p.day !== weekday || !OPEN.test(p.open) || !CLOSE.test(p.close)) continue;
      const open = minutesOf(p.open);
      let close = minutesOf(p.close);
      if (close <= open) close += 1440;
      const start = instant(wallClockAt(date, open));
      const end = instant(wallClockAt(date, close));
      if (start !== undefined && end !== undefined && end > start) raw.push({ start, end });
    }
  }
  raw.sort((a, b) => a.start - b.start);
  const merged: Interval[] = [];
  for (const r of raw) {
    const last = merged[merged.length - 1];
    if (last !== undefined && r.start <= last.end)
      merged[merged.length - 1] = { start: last.start, end: Math.max(last.end, r.end) };
    else merged.push(r);
  }
  return merged;
}

const usable = (zone: string, ...instants: number[]): boolean =>
  isValidTimeZone(zone) && instants.every((t) => Number.isSafeInteger(t));

/** True when the resource works for the WHOLE interval [start, end) (§4.1). */
export function isWithinWorkingHours(hours: WeeklyHours, zone: string, interval: Interval): boolean {
  const { start, end } = interval;
  if (!usable(zone, start, end) || end <= start || end - start > MAX_SPAN_DAYS * DAY_MS) return false;
  // A period opened the day before may run past midnight into the interval.
  const from = addDays(dateAt(start, zone), -1);
  const days = Math.round((end - start) / DAY_MS) + 2;
  return workingIntervals(hours, zone, from, days).some((w) => w.start <= start && end <= w.end);
}

/**
 * §4.2 "until_close": the end of the working stretch that contains `at` (touching periods
 * join), or undefined when the resource is not working at `at`. A stretch that has not
 * ended within a week is cut there.
 */
export function workingStretchEnd(hours: WeeklyHours, zone: string, at: number): number | undefined {
  if (!usable(zone, at)) return undefined;
  const from = addDays(dateAt(at, zone), -1);
  // Most stretches close the day they open: look two days ahead first, and the whole week only
  // when the stretch found is the last one read (it may run on into days not read yet).
  for (const days of [3, STRETCH_LOOKAHEAD_DAYS + 1]) {
    const intervals = workingIntervals(hours, zone, from, days);
    const i = intervals.findIndex((w) => w.start <= at && at < w.end);
    const stretch = intervals[i];
    if (stretch === undefined) return undefined;
    if (i < intervals.length - 1 || days === STRETCH_LOOKAHEAD_DAYS + 1)
      return Math.min(stretch.end, at + STRETCH_LOOKAHEAD_DAYS * DAY_MS);
  }
  return undefined;
}

/** The resources of a type that work for the whole interval, in the order given (§4.1). */
export function candidatesFor(
  resources: readonly WorkingResource[],
  requirementType: string,
  interval: Interval,
): ResourceCandidate[] {
  return resources
    .filter((r) => r.type === requirementType && isWithinWorkingHours(r.hours, r.zone, interval))
    .map((r) => ({ id: r.id, capacity: r.capacity }));
}

/** A store Requirement for one `requires` entry of a service. */
export function requirementFor(
  resources: readonly WorkingResource[],
  type: string,
  interval: Interval,
  units = 1,
  combine = false,
): Requirement {
  const candidates = candidatesFor(resources, type, interval);
  return combine ? { type, candidates, units, combine } : { type, candidates, units };
}
