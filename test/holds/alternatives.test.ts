/** src/holds/alternatives.ts: nearest starts to offer for a taken slot (SchCP §5.2). */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  alternativeCandidates,
  alternativeStarts,
  DEFAULT_ALTERNATIVE_LIMIT,
} from "../../src/holds/alternatives.js";

const M = 60_000;

describe("alternativeStarts", () => {
  it("alternates nearest first, the earlier first on ties, never the requested start", () => {
    const grid = { stepMs: 15 * M, notBefore: 0, notAfter: 1000 * M };
    expect(alternativeStarts(120 * M, grid, 5)).toEqual([105, 135, 90, 150, 75].map((m) => m * M));
  });

  it("keeps within the bounds (inclusive) and runs on along the other side", () => {
    const grid = { stepMs: 15 * M, notBefore: 90 * M, notAfter: 180 * M };
    expect(alternativeStarts(120 * M, grid)).toEqual([105, 135, 90, 150, 165, 180].map((m) => m * M));
  });

  it("follows an anchored grid when the requested start is off it", () => {
    const grid = { stepMs: 15 * M, anchor: 0, notBefore: 0, notAfter: 1000 * M };
    // 07 → 00 (7 away), 15 (8 away), 30, ...
    expect(alternativeStarts(7 * M, grid, 4)).toEqual([0, 15, 30, 45].map((m) => m * M));
    expect(alternativeStarts(8 * M, grid, 2)).toEqual([15, 0].map((m) => m * M));
  });

  it("is bounded, by default at 48", () => {
    const grid = { stepMs: M, notBefore: 0, notAfter: 10_000 * M };
    expect(alternativeStarts(5000 * M, grid)).toHaveLength(DEFAULT_ALTERNATIVE_LIMIT);
  });

  it("starts from the nearest bound when the requested start is far outside", () => {
    const grid = { stepMs: 15 * M, anchor: 0, notBefore: 0, notAfter: 60 * M };
    expect(alternativeStarts(1_000_000 * M, grid)).toEqual([60, 45, 30, 15, 0].map((m) => m * M));
  });

  it.each([
    ["a zero step", { stepMs: 0, notBefore: 0, notAfter: 100 }],
    ["inverted bounds", { stepMs: 1, notBefore: 100, notAfter: 0 }],
  ])("returns nothing for %s", (_name, grid) => {
    expect(alternativeStarts(50, grid)).toEqual([]);
  });

  it("is ordered by distance, earlier first on ties, distinct, on the grid and in bounds (property)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -500, max: 500 }),
        fc.integer({ min: 1, max: 30 }),
        fc.integer({ min: -200, max: 200 }),
        fc.integer({ min: 0, max: 400 }),
        fc.integer({ min: 0, max: 60 }),
        fc.integer({ min: -50, max: 50 }),
        (requested, step, notBefore, span, limit, anchor) => {
          const grid = { stepMs: step, anchor, notBefore, notAfter: notBefore + span };
          const out = alternativeStarts(requested, grid, limit);
          expect(out.length).toBeLessThanOrEqual(limit);
          expect(new Set(out).size).toBe(out.length);
          for (const s of out) {
            expect(s).not.toBe(requested);
            expect(s).toBeGreaterThanOrEqual(notBefore);
            expect(s).toBeLessThanOrEqual(notBefore + span);
            expect((((s - anchor) % step) + step) % step).toBe(0);
          }
          for (let i = 1; i < out.length; i++) {
            const [a, b] = [out[i - 1] ?? 0, out[i] ?? 0];
            const da = Math.abs(a - requested);
            const db = Math.abs(b - requested);
            expect(da < db || (da === db && a < b)).toBe(true);
          }
          // Nothing nearer was left out.
          const all: number[] = [];
          for (
            let s = anchor + Math.ceil((notBefore - anchor) / step) * step;
            s <= notBefore + span;
            s += step
          ) {
            if (s !== requested) all.push(s);
          }
          all.sort((a, b) => Math.abs(a - requested) - Math.abs(b - requested) || a - b);
          expect(out).toEqual(all.slice(0, limit));
        },
      ),
    );
  });
});

describe("alternativeCandidates", () => {
  it("builds candidates in order, skipping starts that cannot be offered", () => {
    const built = alternativeCandidates([10, 20, 30], (start) =>
      start === 20 ? undefined : { interval: { start, end: start + 5 }, requirements: [] },
    );
    expect(built).toEqual([
      { start: 10, interval: { start: 10, end: 15 }, requirements: [] },
      { start: 30, interval: { start: 30, end: 35 }, requirements: [] },
    ]);
  });
});
