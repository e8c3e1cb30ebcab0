/**
 * Working hours over one request's span (SchCP §4.1, §4.2 until_close), pure.
 *
 * The same answers as working-hours.ts (isWithinWorkingHours, workingStretchEnd: property-tested
 * against them), with the same expansion (expandWeeklyHours), done ONCE per distinct weekly
 * schedule over the span, with the caller's memoized wall-clock lookups; every (resource, start)
 * is then a lookup. Why: isWithinWorkingHours expands a few days of hours on every call, and an
 * availability query tests up to 3,000 starts against every resource. Outside the expanded span,
 * or for hours in another zone, it asks working-hours.ts.
 */
import { addDays, type LocalDate, type WallClock } from "../protocol/time/index.js";
import type { Interval } from "./interval.js";
import { expandWeeklyHours, type WeeklyHours } from "./weekly-hours.js";
import { isWithinWorkingHours, STRETCH_LOOKAHEAD_MS, workingStretchEnd } from "./working-hours.js";

const DAY = 86_400_000;

/** Hours and the zone they are read in (a resource's, typically). */
export interface ZonedHours {
  readonly zone: string;
  readonly hours: WeeklyHours;
}

/** Wall-clock conversions in one zone; the booking core's ZoneView is one (memoized). */
export interface ZoneClock {
  readonly zone: string;
  wallClock(epochMs: number): WallClock;
  /** The instant of a local wall clock ("compatible": gaps move forward, overlaps take the earlier). */
  instant(w: WallClock): number | undefined;
}

export class HoursIndex {
  private readonly expanded = new Map<WeeklyHours, Interval[]>();
  /** Instants inside [from, to] are answered from the expansion. */
  private readonly from: number;
  private readonly to: number;

  /** `span`: the earliest start and the latest end any lookup will ask about. */
  constructor(
    private readonly clock: ZoneClock,
    span: Interval,
  ) {
    this.from = span.start;
    this.to = span.end;
  }

  private intervals(hours: WeeklyHours): Interval[] {
    const known = this.expanded.get(hours);
    if (known !== undefined) return known;
    // From the day before the span (a period may run past midnight into it) to two days after.
    const first = this.clock.wallClock(this.from);
    const start: LocalDate = addDays({ year: first.year, month: first.month, day: first.day }, -1);
    const days = Math.ceil((this.to - this.from) / DAY) + 3;
    const merged = expandWeeklyHours(hours, start, days, (w) => this.clock.instant(w));
    this.expanded.set(hours, merged);
    return merged;
  }

  private inSpan(r: ZonedHours, ...instants: number[]): boolean {
    return (
      r.zone === this.clock.zone &&
      instants.every((t) => Number.isSafeInteger(t) && t >= this.from && t <= this.to)
    );
  }

  /** isWithinWorkingHours(r.hours, r.zone, interval). */
  covers(r: ZonedHours, interval: Interval): boolean {
    if (!this.inSpan(r, interval.start, interval.end)) return isWithinWorkingHours(r.hours, r.zone, interval);
    if (interval.end <= interval.start) return false;
    return this.intervals(r.hours).some((w) => w.start <= interval.start && interval.end <= w.end);
  }

  /** workingStretchEnd(r.hours, r.zone, at). */
  stretchEnd(r: ZonedHours, at: number): number | undefined {
    if (!this.inSpan(r, at, at + STRETCH_LOOKAHEAD_MS)) return workingStretchEnd(r.hours, r.zone, at);
    const w = this.intervals(r.hours).find((x) => x.start <= at && at < x.end);
    return w === undefined ? undefined : Math.min(w.end, at + STRETCH_LOOKAHEAD_MS);
  }
}
