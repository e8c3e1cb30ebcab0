/**
 * Working-hours evaluation (SchCP §4.1: "free, and within its working hours, for the whole
 * interval including the buffer"; §4.2 set_aside "until_close"), pure, for one question at a
 * time. hours-index.ts answers the same questions for many starts over one span.
 */
import {
  addDays,
  instantToWallClock,
  isValidTimeZone,
  wallClockToInstant,
  type LocalDate,
} from "../protocol/time/index.js";
import type { Interval } from "./interval.js";
import { expandWeeklyHours, type WeeklyHours } from "./weekly-hours.js";

/** Longest interval examined, so a bad request cannot make us walk years of calendar. */
const MAX_SPAN_DAYS = 62;
/** How far until_close looks for the end of a stretch that never closes (24/7 resources). */
export const STRETCH_LOOKAHEAD_MS = 7 * 86_400_000;
const DAY_MS = 86_400_000;

const dateAt = (epochMs: number, zone: string): LocalDate => {
  const w = instantToWallClock(epochMs, zone);
  return { year: w.year, month: w.month, day: w.day };
};

/** Working intervals that start on local dates from .. from + days, merged where they touch. */
function workingIntervals(hours: WeeklyHours, zone: string, from: LocalDate, days: number): Interval[] {
  return expandWeeklyHours(hours, from, days, (w) => {
    const r = wallClockToInstant(w, zone, "compatible");
    return r.ok ? r.value : undefined;
  });
}

const usable = (zone: string, ...instants: number[]): boolean =>
  isValidTimeZone(zone) && instants.every((t) => Number.isSafeInteger(t));

/** True when the hours cover the WHOLE interval [start, end) (§4.1). */
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
 * join), or undefined when not working at `at`. A stretch that has not ended within a week is
 * cut there.
 */
export function workingStretchEnd(hours: WeeklyHours, zone: string, at: number): number | undefined {
  if (!usable(zone, at)) return undefined;
  const from = addDays(dateAt(at, zone), -1);
  const lookaheadDays = STRETCH_LOOKAHEAD_MS / DAY_MS;
  // Most stretches close the day they open: look two days ahead first, and the whole week only
  // when the stretch found is the last one read (it may run on into days not read yet).
  for (const days of [3, lookaheadDays + 1]) {
    const intervals = workingIntervals(hours, zone, from, days);
    const i = intervals.findIndex((w) => w.start <= at && at < w.end);
    const stretch = intervals[i];
    if (stretch === undefined) return undefined;
    if (i < intervals.length - 1 || days === lookaheadDays + 1)
      return Math.min(stretch.end, at + STRETCH_LOOKAHEAD_MS);
  }
  return undefined;
}
