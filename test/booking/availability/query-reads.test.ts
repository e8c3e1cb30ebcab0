/** One occupancy read per availability query: a covered read is answered from the first. */
import { describe, expect, it } from "vitest";
import { readOccupancy, withQueryReads } from "../../../src/booking/availability/query-reads.js";
import type { OccupancyEntry } from "../../../src/holds/port.js";

const entries: Record<string, OccupancyEntry[]> = {
  u1: [
    { start: 0, end: 100, units: Infinity, agent: false },
    { start: 200, end: 300, units: 1, agent: true },
    { start: 500, end: 600, units: Infinity, agent: false },
  ],
  u2: [{ start: 250, end: 260, units: 1, agent: true }],
};

/** A store answering every entry overlapping the range (both stores' rule), counting calls. */
function store() {
  const s = {
    calls: 0,
    listOccupancy(_h: string, ids: readonly string[], r: { start: number; end: number }, _now: number) {
      s.calls++;
      return Promise.resolve(
        new Map(ids.map((id) => [id, (entries[id] ?? []).filter((e) => e.start < r.end && e.end > r.start)])),
      );
    },
  };
  return s;
}

describe("readOccupancy", () => {
  it("answers a covered read of the same query from the first, as the store would have", async () => {
    const s = store();
    const direct = await store().listOccupancy("h", ["u1"], { start: 150, end: 520 }, 10);
    const narrowed = await withQueryReads(async () => {
      await readOccupancy(s, "h", ["u1", "u2"], { start: 0, end: 1000 }, 10);
      return readOccupancy(s, "h", ["u1"], { start: 150, end: 520 }, 11);
    });
    expect(s.calls).toBe(1);
    expect(narrowed).toEqual(direct);
  });

  it("reads again for another host, a wider range, another resource or an earlier now", async () => {
    const s = store();
    await withQueryReads(async () => {
      await readOccupancy(s, "h", ["u1"], { start: 100, end: 500 }, 10);
      await readOccupancy(s, "other", ["u1"], { start: 100, end: 500 }, 10);
      await readOccupancy(s, "h", ["u1"], { start: 50, end: 500 }, 10);
      await readOccupancy(s, "h", ["u2"], { start: 100, end: 500 }, 10);
      await readOccupancy(s, "h", ["u1"], { start: 100, end: 500 }, 9);
    });
    expect(s.calls).toBe(5);
  });

  it("shares nothing outside a query, nor between queries", async () => {
    const s = store();
    await readOccupancy(s, "h", ["u1"], { start: 0, end: 1000 }, 10);
    await readOccupancy(s, "h", ["u1"], { start: 0, end: 1000 }, 10);
    await withQueryReads(() => readOccupancy(s, "h", ["u1"], { start: 0, end: 1000 }, 10));
    await withQueryReads(() => readOccupancy(s, "h", ["u1"], { start: 0, end: 1000 }, 10));
    expect(s.calls).toBe(4);
  });
});
