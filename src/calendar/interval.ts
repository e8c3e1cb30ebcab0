/**
 * Half-open time intervals [start, end) in epoch milliseconds, pure. The one Interval type
 * of the gateway: the hold store, the booking core and the connector ports all use it.
 */

export interface Interval {
  readonly start: number;
  readonly end: number;
}

/** Half-open: one ending at 10:00 and one starting at 10:00 do not overlap. */
export const overlaps = (a: Interval, b: Interval): boolean => a.start < b.end && b.start < a.end;

/** Sorted, with overlapping or touching intervals joined (working periods that touch are one stretch). */
export function mergeIntervals(intervals: readonly Interval[]): Interval[] {
  const sorted = [...intervals].sort((a, b) => a.start - b.start);
  const merged: Interval[] = [];
  for (const r of sorted) {
    const last = merged[merged.length - 1];
    if (last !== undefined && r.start <= last.end)
      merged[merged.length - 1] = { start: last.start, end: Math.max(last.end, r.end) };
    else merged.push(r);
  }
  return merged;
}
