/**
 * Weekly hours (SchCP §4.1 working hours), pure: what they are, how configured hours are
 * validated, and how they become instants.
 *
 * Hours are weekly periods in an IANA zone: { day: ISO weekday 1..7, open, close } as "HH:MM"
 * local times. A close at or before the open continues past midnight into the next day (Fri
 * 22:00–02:00 ends Saturday 02:00; open = close is 24 hours), and "24:00" closes at the
 * following midnight. Local times become instants through the caller's `instant` (src/protocol
 * /time with "compatible" disambiguation): an opening inside a spring-forward gap moves forward
 * by the gap, one inside a fall-back overlap takes the earlier instant, so a DST day's period is
 * as long as the clocks on the wall say it is.
 */
import { childPointer, err, fieldError, ok, type Result } from "../protocol/result.js";
import {
  addDays,
  isoWeekday,
  type IsoWeekday,
  type LocalDate,
  type WallClock,
} from "../protocol/time/index.js";
import { mergeIntervals, type Interval } from "./interval.js";

export interface WorkingPeriod {
  readonly day: IsoWeekday;
  /** "HH:MM", 00:00 to 23:59. */
  readonly open: string;
  /** "HH:MM", 00:00 to 24:00; at or before `open` runs past midnight. */
  readonly close: string;
}

export type WeeklyHours = readonly WorkingPeriod[];

const OPEN = /^(?:[01]\d|2[0-3]):[0-5]\d$/;
const CLOSE = /^(?:(?:[01]\d|2[0-3]):[0-5]\d|24:00)$/;

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
  // Fields written out: V8 (Node 20) takes ~4 µs for a spread followed by these four fields,
  // and every availability query expands a month of hours.
  return {
    year: d.year,
    month: d.month,
    day: d.day,
    hour: Math.floor(m / 60),
    minute: m % 60,
    second: 0,
    millisecond: 0,
  };
}

/**
 * The working intervals of periods that open on the local dates from .. from + days, merged
 * where they touch. `instant` places a local wall-clock time (DST gaps "compatible"); a
 * caller expanding many times over one zone passes a memoized one (hours-index.ts). A period
 * not in the validated form is skipped.
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
  return mergeIntervals(raw);
}
