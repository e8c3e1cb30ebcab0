/** src/holds/allocation.ts: the algorithm both stores share (SchCP §4.1, §7.2). */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  type AgentOccupancy,
  decideAllocation,
  maxConcurrentUnits,
  maxDistinctResources,
  type Occupancy,
  planAllocation,
  violatedReserve,
} from "../../src/holds/allocation.js";
import type { Interval, Requirement } from "../../src/holds/port.js";

const iv = (start: number, end: number): Interval => ({ start, end });
const occ = (start: number, end: number, units = 1): Occupancy => ({ start, end, units });
const none = () => [];

/** Brute force: the units in use at the moment t. */
const usedAt = (entries: readonly Occupancy[], t: number) =>
  entries.filter((e) => e.start <= t && t < e.end).reduce((s, e) => s + e.units, 0);

describe("maxConcurrentUnits (step 2: a sweep, not a sum)", () => {
  it.each([
    ["nothing", [], iv(0, 10), 0],
    ["one inside", [occ(2, 4, 3)], iv(0, 10), 3],
    ["back to back never coexist (half-open)", [occ(0, 5), occ(5, 10)], iv(0, 10), 1],
    ["overlapping add up", [occ(0, 6), occ(5, 10)], iv(0, 10), 2],
    ["only what overlaps the interval counts", [occ(0, 5, 4), occ(5, 10, 1)], iv(5, 10), 1],
    ["touching the interval's edge is outside", [occ(10, 20, 7)], iv(0, 10), 0],
    ["clipped to the interval", [occ(0, 6, 2), occ(6, 20, 3), occ(8, 20, 1)], iv(0, 7), 3],
  ] as const)("%s", (_name, entries, interval, expected) => {
    expect(maxConcurrentUnits(entries, interval)).toBe(expected);
  });

  it("equals the most units in use at any instant of the interval (property)", () => {
    const entry = fc
      .tuple(fc.integer({ min: 0, max: 40 }), fc.integer({ min: 1, max: 10 }), fc.integer({ min: 1, max: 4 }))
      .map(([s, len, u]) => occ(s, s + len, u));
    fc.assert(
      fc.property(
        fc.array(entry, { maxLength: 12 }),
        fc.integer({ min: 0, max: 45 }),
        fc.integer({ min: 1, max: 15 }),
        (es, s, len) => {
          const interval = iv(s, s + len);
          let brute = 0;
          for (let t = interval.start; t < interval.end; t++) brute = Math.max(brute, usedAt(es, t));
          expect(maxConcurrentUnits(es, interval)).toBe(brute);
        },
      ),
    );
  });
});

const requirement = (
  type: string,
  candidates: Array<[string, number]>,
  units = 1,
  combine = false,
): Requirement => ({
  type,
  candidates: candidates.map(([id, capacity]) => ({ id, capacity })),
  units,
  ...(combine ? { combine } : {}),
});

describe("planAllocation (steps 3–4)", () => {
  const I = iv(0, 10);

  it("prefers candidates in order and takes the units asked for", () => {
    expect(
      planAllocation(
        [
          requirement("bay", [
            ["b1", 1],
            ["b2", 1],
          ]),
        ],
        I,
        none,
      ),
    ).toEqual([{ resourceId: "b1", units: 1, type: "bay" }]);
    expect(planAllocation([requirement("studio", [["s", 20]], 6)], I, none)).toEqual([
      { resourceId: "s", units: 6, type: "studio" },
    ]);
  });

  it("never uses one resource for two requirements", () => {
    const r = requirement("tech", [
      ["a", 5],
      ["b", 1],
    ]);
    expect(planAllocation([r, r], I, none)?.map((a) => a.resourceId)).toEqual(["a", "b"]);
    expect(planAllocation([r, r, r], I, none)).toBeUndefined();
  });

  it("considers a candidate listed twice only once", () => {
    const r = requirement("tech", [
      ["a", 2],
      ["a", 2],
    ]);
    expect(planAllocation([r, r], I, none)).toBeUndefined();
  });

  it("backtracks when the greedy choice starves a later requirement", () => {
    const plan = planAllocation(
      [
        requirement("t", [
          ["x", 1],
          ["y", 1],
        ]),
        requirement("t", [["x", 1]]),
      ],
      I,
      none,
    );
    expect(plan?.map((a) => a.resourceId)).toEqual(["y", "x"]);
  });

  it("combines entirely free resources largest first, ties in candidate order, each whole", () => {
    const r = requirement(
      "table",
      [
        ["t2", 2],
        ["t4a", 4],
        ["t6", 6],
        ["t4b", 4],
      ],
      9,
      true,
    );
    expect(planAllocation([r], I, none)).toEqual([
      { resourceId: "t6", units: 6, type: "table" },
      { resourceId: "t4a", units: 4, type: "table" },
    ]);
    const busyT6 = (c: { id: string }) => (c.id === "t6" ? [occ(9, 10)] : []);
    expect(planAllocation([r], I, busyT6)?.map((a) => a.resourceId)).toEqual(["t4a", "t4b", "t2"]);
    expect(planAllocation([{ ...r, units: 11 }], I, busyT6)).toBeUndefined();
  });

  it("a combine requirement skips resources an earlier requirement took", () => {
    const plain = requirement("table", [["t6", 6]]);
    const combined = requirement(
      "table",
      [
        ["t6", 6],
        ["t4", 4],
        ["t2", 2],
      ],
      5,
      true,
    );
    expect(planAllocation([plain, combined], I, none)?.map((a) => [a.resourceId, a.units])).toEqual([
      ["t6", 1],
      ["t4", 4],
      ["t2", 2],
    ]);
  });

  it("gives up (refuses) once the search budget is spent", () => {
    // Five identical requirements over four resources: no assignment, many to try.
    const r = requirement("t", [
      ["a", 1],
      ["b", 1],
      ["c", 1],
      ["d", 1],
    ]);
    expect(planAllocation([r, r, r, r], I, none, 4)).toHaveLength(4);
    expect(planAllocation([r, r, r, r, r], I, none)).toBeUndefined();
    const flexible = requirement("t", [
      ["x", 1],
      ["y", 1],
    ]);
    expect(planAllocation([flexible, requirement("t", [["x", 1]])], I, none, 1)).toBeUndefined();
  });

  it("finds an assignment exactly when one exists under the combine rule, and every allocation fits (property)", () => {
    const ids = ["r0", "r1", "r2", "r3"];
    const world = fc.record({
      capacities: fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 4, maxLength: 4 }),
      used: fc.array(fc.integer({ min: 0, max: 4 }), { minLength: 4, maxLength: 4 }),
      reqs: fc.array(
        fc.record({
          candidates: fc.subarray(ids, { minLength: 1 }),
          units: fc.integer({ min: 1, max: 6 }),
          combine: fc.boolean(),
        }),
        { minLength: 1, maxLength: 3 },
      ),
    });
    fc.assert(
      fc.property(world, ({ capacities, used, reqs }) => {
        const cap = (id: string) => capacities[ids.indexOf(id)] ?? 1;
        const inUse = (id: string) => Math.min(used[ids.indexOf(id)] ?? 0, cap(id));
        const requirements = reqs.map((r) =>
          requirement(
            "t",
            r.candidates.map((id) => [id, cap(id)]),
            r.units,
            r.combine,
          ),
        );
        const occupancyOf = (c: { id: string }) => (inUse(c.id) > 0 ? [occ(0, 10, inUse(c.id))] : []);
        const plan = planAllocation(requirements, I, occupancyOf);
        expect(plan !== undefined).toBe(bruteForceExists(requirements, inUse));
        if (plan === undefined) return;
        expect(new Set(plan.map((a) => a.resourceId)).size).toBe(plan.length);
        for (const a of plan) expect(a.units + inUse(a.resourceId)).toBeLessThanOrEqual(cap(a.resourceId));
      }),
      { numRuns: 2000 },
    );
  });
});

/**
 * Brute force over every assignment of the plain requirements. A combine requirement has
 * one option by §4.1 ("takes the largest first"): the largest free unused resources until
 * they add up, so the search never revisits it (refusing is the safe side).
 */
function bruteForceExists(requirements: readonly Requirement[], inUse: (id: string) => number): boolean {
  const visit = (i: number, used: Set<string>): boolean => {
    const r = requirements[i];
    if (r === undefined) return true;
    const options = r.candidates.filter(
      (c, k) => !used.has(c.id) && r.candidates.findIndex((d) => d.id === c.id) === k,
    );
    if (r.combine === true) {
      const free = options.filter((c) => inUse(c.id) === 0).sort((a, b) => b.capacity - a.capacity);
      const taken: string[] = [];
      let sum = 0;
      for (const c of free) {
        if (sum >= r.units) break;
        taken.push(c.id);
        sum += c.capacity;
      }
      return sum >= r.units && visit(i + 1, new Set([...used, ...taken]));
    }
    return options.some((c) => c.capacity - inUse(c.id) >= r.units && visit(i + 1, new Set([...used, c.id])));
  };
  return visit(0, new Set());
}

describe("walk-in reserve (step 5)", () => {
  const agent = (resourceId: string, start: number, end: number, type = "chair"): AgentOccupancy => ({
    resourceId,
    type,
    start,
    end,
  });
  const chair = (id: string) => ({ resourceId: id, units: 1, type: "chair" });
  const reserve = { resourceType: "chair", keep: 1, typeCount: 3 };

  it("counts distinct resources at each moment", () => {
    expect(maxDistinctResources([agent("a", 0, 5), agent("a", 3, 8), agent("b", 5, 10)], iv(0, 10))).toBe(2);
    expect(maxDistinctResources([agent("a", 0, 5), agent("b", 5, 10)], iv(0, 10))).toBe(1);
    expect(maxDistinctResources([agent("a", 0, 5), agent("a", 5, 10)], iv(0, 10))).toBe(1);
    expect(maxDistinctResources([agent("a", 0, 5)], iv(5, 10))).toBe(0);
  });

  it.each([
    ["room left", [agent("a", 0, 10)], [chair("b")], undefined],
    ["would take the kept chair", [agent("a", 0, 10), agent("b", 2, 4)], [chair("c")], reserve],
    ["others never at once", [agent("a", 0, 5), agent("b", 5, 10)], [chair("c")], undefined],
    [
      "sharing an agent's chair adds nothing",
      [agent("a", 0, 10), agent("b", 0, 10)],
      [chair("a")],
      undefined,
    ],
    ["another type is not counted", [agent("a", 0, 10), agent("x", 0, 10, "bay")], [chair("b")], undefined],
    [
      "a hold taking none of the type is not concerned",
      [agent("a", 0, 10), agent("b", 0, 10)],
      [{ resourceId: "x", units: 1, type: "bay" }],
      undefined,
    ],
  ] as const)("%s", (_name, occupancy, planned, expected) => {
    expect(violatedReserve([reserve], iv(0, 10), planned, occupancy)).toEqual(expected);
  });

  it("keep ≥ count keeps agents out entirely", () => {
    expect(
      violatedReserve([{ resourceType: "chair", keep: 2, typeCount: 2 }], iv(0, 10), [chair("a")], []),
    ).toBeDefined();
  });

  it("decideAllocation reports which check refused", () => {
    const r = requirement("chair", [
      ["a", 1],
      ["b", 1],
    ]);
    expect(decideAllocation([r], iv(0, 10), none, [reserve], [agent("c", 0, 10), agent("d", 0, 10)])).toEqual(
      {
        ok: false,
        error: { reason: "walk_in_reserve", reserve },
      },
    );
    expect(decideAllocation([r], iv(0, 10), () => [occ(0, 10)], [], [])).toEqual({
      ok: false,
      error: { reason: "slot_taken" },
    });
    expect(decideAllocation([r], iv(0, 10), none, [reserve], [])).toEqual({
      ok: true,
      value: [chair("a")],
    });
  });
});
