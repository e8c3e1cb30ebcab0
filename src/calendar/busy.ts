/**
 * The busy view of expanded occurrences, pure: what a calendar-fallback host cannot be booked
 * in. Cancelled occurrences (RFC 4791 §7.10: STATUS:CANCELLED is not busy) and transparent ones
 * (TRANSP:TRANSPARENT) are free; zero-length ones take no time.
 */
import { mergeIntervals, type Interval } from "./interval.js";

/** An occurrence from expandEvents (epoch ms) or expandIcs (RFC 3339 strings). */
export interface BusyCandidate {
  readonly start: number | string;
  readonly end: number | string;
  readonly status: string | null;
  readonly transparent: boolean;
}

const ms = (t: number | string): number => (typeof t === "number" ? t : Date.parse(t));

/** Merged busy intervals (epoch ms, sorted, touching ones joined). */
export function busyIntervals(occurrences: readonly BusyCandidate[]): Interval[] {
  const busy: Interval[] = [];
  for (const o of occurrences) {
    if (o.transparent || o.status === "CANCELLED") continue;
    const start = ms(o.start);
    const end = ms(o.end);
    if (Number.isFinite(start) && Number.isFinite(end) && end > start) busy.push({ start, end });
  }
  return mergeIntervals(busy);
}
