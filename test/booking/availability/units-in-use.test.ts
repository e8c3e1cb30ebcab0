/**
 * UnitsInUse answers maxConcurrentUnits (src/holds/allocation.ts step 2) for every interval,
 * the sweep's own quirks included: busy blocks of infinite units, entries of no or negative
 * units, empty and reversed entries (then it declines, and the caller sweeps), empty and
 * reversed intervals.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { UnitsInUse } from "../../../src/booking/availability/units-in-use.js";
import { maxConcurrentUnits, type Occupancy } from "../../../src/holds/allocation.js";

const INF = Number.POSITIVE_INFINITY;
const entry = (start: number, end: number, units: number): Occupancy => ({ start, end, units });

const entryArb = fc.record({
  start: fc.integer({ min: 0, max: 40 }),
  length: fc.oneof({ arbitrary: fc.integer({ min: 1, max: 12 }), weight: 8 }, fc.constantFrom(0, -3)),
  units: fc.oneof({ arbitrary: fc.integer({ min: 1, max: 4 }), weight: 6 }, fc.constantFrom(INF, INF, 0, -2)),
});
const entriesArb = fc.array(
  entryArb.map((e) => entry(e.start, e.start + e.length, e.units)),
  { maxLength: 14 },
);
const intervalArb = fc.record({
  start: fc.integer({ min: -2, max: 45 }),
  end: fc.integer({ min: -2, max: 55 }),
});

describe("UnitsInUse", () => {
  it("answers maxConcurrentUnits for any interval, or declines the entries the sweep reads differently (property)", () => {
    let answered = 0;
    fc.assert(
      fc.property(entriesArb, fc.array(intervalArb, { minLength: 1, maxLength: 8 }), (entries, intervals) => {
        const steps = UnitsInUse.of(entries);
        const irregular = entries.some(
          (e) => e.units > 0 && (e.end < e.start || (e.end === e.start && e.units === INF)),
        );
        expect(steps === undefined).toBe(irregular);
        if (steps === undefined) return;
        for (const i of intervals) {
          expect(steps.maxIn(i.start, i.end), JSON.stringify(i)).toBe(maxConcurrentUnits(entries, i));
          answered++;
        }
      }),
      { numRuns: 3000 },
    );
    expect(answered).toBeGreaterThan(5000);
  });

  it("counts touching entries apart and overlapping ones together", () => {
    const steps = UnitsInUse.of([entry(0, 10, 1), entry(10, 20, 2), entry(5, 15, 1), entry(30, 30, 5)]);
    expect(steps?.maxIn(0, 5)).toBe(1);
    expect(steps?.maxIn(0, 10)).toBe(2);
    expect(steps?.maxIn(10, 12)).toBe(3);
    expect(steps?.maxIn(15, 40)).toBe(2);
    expect(steps?.maxIn(20, 40)).toBe(0); // the empty entry at 30 never counts
  });

  it("reads a busy block (infinite units) as the whole capacity, whatever else is there", () => {
    const steps = UnitsInUse.of([entry(0, 10, INF), entry(5, 20, 1), entry(10, 12, INF)]);
    expect(steps?.maxIn(9, 10)).toBe(INF);
    expect(steps?.maxIn(12, 20)).toBe(1);
    expect(steps?.maxIn(11, 13)).toBe(INF);
    expect(steps?.maxIn(20, 30)).toBe(0);
  });

  it("declines what the sweep reads differently, and answers 0 for an empty interval", () => {
    // A reversed entry's -units come first and cancel the others'.
    expect(maxConcurrentUnits([entry(10, 5, 1), entry(6, 9, 1)], { start: 4, end: 11 })).toBe(0);
    expect(UnitsInUse.of([entry(10, 5, 1), entry(6, 9, 1)])).toBeUndefined();
    // An empty busy block leaves NaN for the rest of the sweep.
    expect(maxConcurrentUnits([entry(5, 5, INF), entry(6, 9, 1)], { start: 4, end: 11 })).toBe(0);
    expect(UnitsInUse.of([entry(5, 5, INF), entry(6, 9, 1)])).toBeUndefined();
    expect(UnitsInUse.of([entry(0, 10, 1.5)])).toBeUndefined();
    expect(UnitsInUse.of([entry(0, 10, 2)])?.maxIn(5, 5)).toBe(0);
  });
});
