/**
 * Working hours of a host's resources over one request's span (SchCP §4.1 "within its working
 * hours, for the whole interval including the buffer"; §4.2 until_close).
 *
 * The same answers as src/holds/working-hours.ts (isWithinWorkingHours, workingStretchEnd:
 * property-tested against them), computed differently: each distinct weekly schedule is
 * expanded ONCE over the span into merged working intervals, and every (resource, start)
 * is then a lookup. Why: isWithinWorkingHours expands a few days of hours on every call, and an
 * availability query tests up to 3,000 starts against every resource.
 * Outside the expanded span, or for a resource in another zone, it asks working-hours.ts.
 */
import type { Interval } from "../../holds/port.js";
import {
  isWithinWorkingHours,
  workingStretchEnd,
  type WeeklyHours,
  type WorkingResource,
} from "../../holds/working-hours.js";
import { addDays, type LocalDate } from "../../protocol/time/index.js";
import { weekdayOf, type ZoneView } from "../rules/zone-view.js";

const DAY = 86_400_000;
/** As working-hours.ts: a stretch that never closes is cut a week after `at`. */
const STRETCH_LOOKAHEAD_MS = 7 * DAY;
const OPEN = /^(?:[01]\d|2[0-3]):[0-5]\d$/;
const CLOSE = /^(?:(?:[01]\d|2[0-3]):[0-5]\d|24:00)$/;
const minutesOf = (hhmm: string): number => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

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
    const raw: Interval[] = [];
    for (let i = 0; i <= days; i++) {
      const date = addDays(start, i);
      const weekday = weekdayOf(date);
      for (const p of hours) {
        if (p.day !== weekday || !OPEN.test(p.open) || !CLOSE.test(p.close)) continue;
        const open = minutesOf(p.open);
        let close = minutesOf(p.close);
        if (close <= open) close += 1440;
        const s = this.local(date, open);
        const e = this.local(date, close);
        if (s !== undefined && e !== undefined && e > s) raw.push({ start: s, end: e });
      }
    }
    raw.sort((a, b) => a.start - b.start);
    const merged: Interval[] = [];
    for (const r of raw) {
      const prev = merged[merged.length - 1];
      if (prev !== undefined && r.start <= prev.end)
        merged[merged.length - 1] = { start: prev.start, end: Math.max(prev.end, r.end) };
      else merged.push(r);
    }
    this.expanded.set(hours, merged);
    return merged;
  }

  private local(date: LocalDate, minutes: number): number | undefined {
    const d = minutes >= 1440 ? addDays(date, 1) : date;
    const m = minutes % 1440;
    return this.view.instant({ ...d, hour: Math.floor(m / 60), minute: m % 60, second: 0, millisecond: 0 });
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
