/**
 * How many units of one resource are in use at every moment, built ONCE per availability query
 * from the store's occupancy, so that "the most units in use at any one moment of an interval"
 * (src/holds/allocation.ts maxConcurrentUnits, step 2) is a binary search instead of a sweep
 * per start: a query tests up to 3,000 starts against every candidate resource.
 *
 * The step function: sweep every entry once, as step 2 does (+units at start, -units at end,
 * ends before starts at equal times), and keep each stretch between consecutive event times
 * with the units in use over it (> 0 only). For any interval, step 2's clipped sweep reaches
 * exactly the largest value of the stretches it overlaps (0 when none): at the interval's start
 * its sum is the units of the entries covering that moment, after that it changes where the
 * stretches change, and the intermediate sums at one instant (ends first) never exceed the
 * values on either side of it. Entries of no units, and empty ones (start = end) of finite
 * units, never raise it, so they are left out. test/booking/availability/units-in-use.test.ts
 * checks all this against maxConcurrentUnits itself.
 *
 * A busy block takes the resource's whole capacity, whatever it is: the stores give it infinite
 * units. Step 2 then reaches Infinity as soon as such an entry starts (a later Infinity minus
 * Infinity is NaN, which never lowers the maximum found), so a stretch under one is worth
 * Infinity, and the finite units are summed apart.
 *
 * Entries step 2 reads differently are not summarised: an entry ending before it starts (its
 * -units can cancel others' units), an empty one of infinite units (its -Infinity, sorted
 * first, leaves NaN for the rest of the sweep), and other units or times that are not safe
 * integers (sums in another order could round differently). For a resource with one, `of` answers undefined
 * and the caller asks maxConcurrentUnits.
 */
import type { Occupancy } from "../../holds/allocation.js";

export class UnitsInUse {
  private constructor(
    /** Where an entry of infinite units is in force: disjoint stretches, in time order. */
    private readonly full: Stretches,
    /** The finite units in use, where more than 0. */
    private readonly used: Stretches,
  ) {}

  /** The step function of `entries`, or undefined when one of them is read differently (above). */
  static of(entries: readonly Occupancy[]): UnitsInUse | undefined {
    const infinite: Occupancy[] = [];
    const finite: Occupancy[] = [];
    for (const e of entries) {
      if (!Number.isSafeInteger(e.start) || !Number.isSafeInteger(e.end)) return undefined;
      if (!Number.isSafeInteger(e.units) && e.units !== Number.POSITIVE_INFINITY) return undefined;
      if (e.units <= 0) continue;
      if (e.end < e.start || (e.end === e.start && e.units === Number.POSITIVE_INFINITY)) return undefined;
      if (e.end === e.start) continue;
      (e.units === Number.POSITIVE_INFINITY ? infinite : finite).push(e);
    }
    const used = finiteSteps(finite);
    return used === undefined ? undefined : new UnitsInUse(union(infinite), used);
  }

  /** maxConcurrentUnits(entries, { start, end }). */
  maxIn(start: number, end: number): number {
    // Step 2 on an empty or reversed interval: every clipped entry ends before it starts.
    if (end <= start) return 0;
    if (this.full.firstOverlapping(start, end) >= 0) return Number.POSITIVE_INFINITY;
    const { starts, values } = this.used;
    let max = 0;
    const first = this.used.firstOverlapping(start, end);
    if (first < 0) return 0;
    for (let k = first; k < starts.length && starts[k]! < end; k++) if (values[k]! > max) max = values[k]!;
    return max;
  }
}

/** Disjoint stretches [starts[k], ends[k]) in time order, each with a value. */
class Stretches {
  readonly starts: number[] = [];
  readonly ends: number[] = [];
  readonly values: number[] = [];

  /** The first stretch overlapping [start, end) (start < end), or -1. */
  firstOverlapping(start: number, end: number): number {
    const { ends } = this;
    let lo = 0;
    let hi = ends.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (ends[mid]! <= start) lo = mid + 1;
      else hi = mid;
    }
    return lo < ends.length && this.starts[lo]! < end ? lo : -1;
  }
}

/**
 * Where any of the (non-empty) entries is in force: any overlap with it is an overlap with one.
 * Starts and ends are sorted apart (numeric sorts, no comparator: the entries come in any
 * order and a resource has hundreds of busy blocks), and the union is where more entries have
 * started than ended, counted after every event of an instant.
 */
function union(entries: readonly Occupancy[]): Stretches {
  const n = entries.length;
  const starts = new Float64Array(n);
  const ends = new Float64Array(n);
  let sorted = true; // a calendar's busy blocks usually come in order: no sort then
  for (let k = 0; k < n; k++) {
    starts[k] = entries[k]!.start;
    ends[k] = entries[k]!.end;
    if (k > 0 && (starts[k]! < starts[k - 1]! || ends[k]! < ends[k - 1]!)) sorted = false;
  }
  if (!sorted) {
    starts.sort();
    ends.sort();
  }
  const out = new Stretches();
  let i = 0;
  let j = 0;
  let open = 0;
  while (j < n) {
    const at = i < n && starts[i]! < ends[j]! ? starts[i]! : ends[j]!;
    const before = open;
    for (; i < n && starts[i] === at; i++) open++;
    for (; j < n && ends[j] === at; j++) open--;
    if (before === 0 && open > 0) out.starts.push(at);
    else if (before > 0 && open === 0) out.ends.push(at);
  }
  for (let k = 0; k < out.starts.length; k++) out.values.push(Number.POSITIVE_INFINITY);
  return out;
}

/** The sum of the (non-empty, safe integer) entries' units between event instants, where > 0. */
function finiteSteps(entries: readonly Occupancy[]): Stretches | undefined {
  const times: number[] = [];
  const deltas: number[] = [];
  for (const e of entries) {
    times.push(e.start, e.end);
    deltas.push(e.units, -e.units);
  }
  // Only the sums between instants are kept, so the order at one instant does not matter.
  const order = times.map((_, i) => i).sort((a, b) => times[a]! - times[b]!);
  const out = new Stretches();
  let sum = 0;
  for (let k = 0; k < order.length; k++) {
    const i = order[k]!;
    sum += deltas[i]!;
    const at = times[i]!;
    const next = k + 1 < order.length ? times[order[k + 1]!]! : at;
    if (next === at) continue; // more events at this instant: the stretch starts after the last
    if (!Number.isSafeInteger(sum)) return undefined;
    if (sum > 0) {
      out.starts.push(at);
      out.ends.push(next);
      out.values.push(sum);
    }
  }
  return out;
}
