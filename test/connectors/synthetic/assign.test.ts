/**
 * The synthetic platform assigns resources with its own code (assign.ts), as an outside
 * platform would. The gateway's hold store follows the same SchCP §4.1 rules
 * (src/holds/allocation.ts planAllocation); this property test checks the two agree on random
 * needs and occupancy, so a platform refusing what the gateway offers (or the reverse) shows here.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { assign, peakUse, type Need, type Taken } from "../../../src/connectors/synthetic/assign.js";
import { maxConcurrentUnits, planAllocation } from "../../../src/holds/allocation.js";

const RESOURCES = ["a", "b", "c", "d", "e"];
const taken: fc.Arbitrary<Taken> = fc
  .tuple(fc.integer({ min: 0, max: 10 }), fc.integer({ min: 1, max: 6 }), fc.integer({ min: 1, max: 3 }))
  .map(([start, length, units]) => ({ start, end: start + length, units }));
const need: fc.Arbitrary<Need> = fc
  .record({
    type: fc.constantFrom("x", "y"),
    options: fc.uniqueArray(
      fc.record({ id: fc.constantFrom(...RESOURCES), capacity: fc.integer({ min: 1, max: 3 }) }),
      { selector: (o) => o.id, maxLength: 4 },
    ),
    units: fc.integer({ min: 1, max: 4 }),
    combine: fc.boolean(),
  })
  .map((n) => (n.combine ? n : { type: n.type, options: n.options, units: n.units }));

describe("the platform's assignment agrees with the gateway's (SchCP §4.1)", () => {
  it("peak use is the gateway's concurrent units", () => {
    fc.assert(
      fc.property(fc.array(taken, { maxLength: 6 }), fc.integer({ min: 0, max: 12 }), (entries, from) => {
        const during = { start: from, end: from + 3 };
        expect(peakUse(entries, during)).toBe(maxConcurrentUnits(entries, during));
      }),
    );
  });

  it("the same resources, or the same refusal", () => {
    fc.assert(
      fc.property(
        fc.array(need, { minLength: 1, maxLength: 3 }),
        fc.dictionary(fc.constantFrom(...RESOURCES), fc.array(taken, { maxLength: 3 })),
        (needs, occupancy) => {
          // A resource has one capacity whichever need lists it.
          const capacity = new Map<string, number>();
          const consistent = needs.map((n) => ({
            ...n,
            options: n.options.map((o) => {
              const c = capacity.get(o.id) ?? o.capacity;
              capacity.set(o.id, c);
              return { id: o.id, capacity: c };
            }),
          }));
          const during = { start: 4, end: 8 };
          const mine = assign(consistent, (id) => peakUse(occupancy[id] ?? [], during));
          const gateway = planAllocation(
            consistent.map((n) => ({ ...n, candidates: n.options })),
            during,
            (c) => occupancy[c.id] ?? [],
          );
          expect(mine).toEqual(gateway?.map(({ resourceId, units }) => ({ resourceId, units })));
        },
      ),
      { numRuns: 500 },
    );
  });
});
