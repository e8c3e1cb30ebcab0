/**
 * Working hours of a host's resources over one request's span (SchCP §4.1 "within its working
 * hours, for the whole interval including the buffer"; §4.2 until_close).
 *
 * The same answers as src/holds/working-hours.ts (isWithinWorkingHours, workingStretchEnd:
 * property-tested against them), with the same expansion (expandWeeklyHours), done ONCE per
 * distinct weekly schedule over the span, with the zone view's memoized wall-clock lookups;
 * every (resource, start) is then a lookup. Why: isWithinWorkingHours expands a few days of hours on every call, and an
 * availability query tests up to 3,000 starts against every resource.
 * Outside the expanded span, or for a resource in another zone, it asks working-hours.ts.
 */
import type { Interval } from "../../holds/port.js";
import {
  expandWeeklyHours,
  isWithinWorkingHours,
  workingStretchEnd,
  type WeeklyHours,
  type WorkingResource,
} from "../../holds/working-hours.js";
import { addDays, type LocalDate } from "../../protocol/time/index.js";
import type { ZoneView } from "../rules/zone-view.js";

const DAY = 86_400_000;
/** As working-hours.ts: a stretch that never closes is cut a week after `at`. */
const STRETCH_LOOKAHEAD_MS = 7 * DAY;

export class HoursIndex {
  private readonly expanded = new Map<WeeklyHours, Interval[]>();
  /** Instants inside [from, to] are answered from the expansion. */
  private readonly from: number;
  private readonly to: number;

  /** `span`: the earliest start and the latest end any lookup will ask about. */
  constructor(
    private readonly view: ZoneView,
    span: Interval,
  ) {
    this.from = span.start;
    this.to = span.end;
  }

  private intervals(hours: WeeklyHours): Interval[] {
    const known = this.expanded.get(hours);
    if (known !== undefined) return known;
    // From the day before the span (a period may run past midnight into it) to two days after.
    const first = this.view.wallClock(this.from);
    const start: LocalDate = addDays({ year: first.year, month: first.month, day: first.day }, -1);
    const days = Math.ceil((this.to - this.from) / DAY) + 3;
    const merged = expandWeeklyHours(hours, start, days, (w) => this.view.instant(w));
    this.expanded.set(hours, merged);
    return merged;
  }

  private inSpan(r: WorkingResource, ...instants: number[]): boolean {
    return (
      r.zone === this.view.zone &&
      instants.every((t) => Number.isSafeInteger(t) && t >= this.from && t <= this.to)
    );
  }

  /** isWithinWorkingHours(r.hours, r.zone, interval). */
  covers(r: WorkingResource, interval: Interval): boolean {
    if (!this.inSpan(r, interval.start, interval.end)) return isWithinWorkingHours(r.hours, r.zone, interval);
    if (interval.end <= interval.start) return false;
    return this.intervals(r.hours).some((w) => w.start <= interval.start && interval.end <= w.end);
  }

  /** workingStretchEnd(r.hours, r.zone, at). */
  stretchEnd(r: WorkingResource, at: number): number | undefined {
    if (!this.inSpan(r, at, at + STRETCH_LOOKAHEAD_MS)) return workingStretchEnd(r.hours, r.zone, at);
    const w = this.intervals(r.hours).find((x) => x.start <= at && at < x.end);
    return w === undefined ? undefined : Math.min(w.end, at + STRETCH_LOOKAHEAD_MS);
  }
}
