/**
 * The memory backend reads ranges through a by-day index; these properties hold it to the
 * plain answer (every appointment whose occupied time overlaps the range), through creates,
 * moves across days, long set-asides and cancellations.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MemorySyntheticBackend } from "../../../src/connectors/synthetic/index.js";
import type { SyntheticAppointment } from "../../../src/connectors/synthetic/index.js";

const HOUR = 3_600_000;
const T0 = Date.UTC(2026, 11, 1);

const appointment = (id: number, start: number, span: number, cancelled: boolean): SyntheticAppointment => ({
  id: `a${id}`,
  idempotencyKey: `k${id}`,
  fingerprint: "f",
  serviceId: "s",
  start,
  occupiedUntil: start + span,
  allocations: [{ resourceId: "r", units: 1 }],
  status: cancelled ? "cancelled" : "confirmed",
  partySize: 1,
  createdAt: T0,
  updatedAt: T0,
});

const op = fc.record({
  id: fc.integer({ min: 0, max: 30 }),
  start: fc.integer({ min: 0, max: 24 * 20 }).map((h) => T0 + h * HOUR),
  span: fc.oneof(fc.integer({ min: 1, max: 4 }), fc.integer({ min: 24, max: 24 * 7 })).map((h) => h * HOUR),
  cancelled: fc.boolean(),
});
const range = fc
  .tuple(fc.integer({ min: -24, max: 24 * 30 }), fc.integer({ min: 1, max: 24 * 10 }))
  .map(([h, len]) => ({ start: T0 + h * HOUR, end: T0 + (h + len) * HOUR }));

describe("MemorySyntheticBackend range reads (by-day index)", () => {
  it("returns exactly the appointments overlapping the range", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(op, { maxLength: 60 }),
        fc.array(range, { minLength: 1, maxLength: 5 }),
        async (ops, ranges) => {
          const backend = new MemorySyntheticBackend();
          const truth = new Map<string, SyntheticAppointment>();
          for (const o of ops) {
            const a = appointment(o.id, o.start, o.span, o.cancelled);
            const snap = await backend.read("h", {});
            const written = await backend.write("h", snap.version, a, !truth.has(a.id));
            if (written.outcome === "written") truth.set(a.id, a);
          }
          for (const r of ranges) {
            const { occupying } = await backend.read("h", { range: r });
            const expected = [...truth.values()]
              .filter((a) => a.status !== "cancelled" && a.start < r.end && r.start < a.occupiedUntil)
              .map((a) => a.id)
              .sort();
            expect(occupying.map((a) => a.id).sort()).toEqual(expected);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
