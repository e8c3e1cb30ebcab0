/**
 * The memory store's day index of active bookings: a windowed read must see exactly what a
 * full scan filtered to the window sees, whatever bookings were created, moved, released
 * or annotated before it (including ones that span midnight or more than a week).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { HostState } from "../../src/holds/memory/host-state.js";
import type { BookingRecord, Interval } from "../../src/holds/port.js";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const T0 = Date.UTC(2026, 5, 1);

const intervalArb: fc.Arbitrary<Interval> = fc
  .tuple(
    fc.integer({ min: -10 * 24, max: 40 * 24 }), // start hour, around T0
    fc.oneof(
      fc.integer({ min: 1, max: 6 }), // an appointment
      fc.integer({ min: 20, max: 60 }), // across midnight
      fc.integer({ min: 7 * 24, max: 20 * 24 }), // longer than the index files by day
    ),
  )
  .map(([h, len]) => ({ start: T0 + h * HOUR, end: T0 + (h + len) * HOUR }));

type Op =
  | { kind: "create"; interval: Interval }
  | { kind: "move"; pick: number; interval: Interval }
  | { kind: "release"; pick: number }
  | { kind: "annotate"; pick: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: intervalArb.map((interval) => ({ kind: "create" as const, interval })) },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant("move" as const), pick: fc.nat(), interval: intervalArb }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("release" as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("annotate" as const), pick: fc.nat() }) },
);

function booking(n: number, interval: Interval): BookingRecord {
  return {
    hostId: "h",
    bookingId: `b${n}`,
    holdId: `h${n}`,
    serviceId: "s",
    interval,
    owner: { agentKey: "k", principal: "p", mandates: [{ rootIss: "iss", jti: "j", maxBookings: 100 }] },
    allocations: [{ resourceId: `r${n % 3}`, units: 1 }],
    state: "active",
    payload: "{}",
  };
}

function apply(host: HostState, ops: readonly Op[]): void {
  const ids: string[] = [];
  for (const op of ops) {
    if (op.kind === "create") {
      const record = booking(ids.length, op.interval);
      host.putBooking({ record, types: ["chair"] });
      ids.push(record.bookingId);
      continue;
    }
    const id = ids[op.pick % Math.max(1, ids.length)];
    const stored = id === undefined ? undefined : host.bookings.get(id);
    if (stored === undefined) continue;
    const r = stored.record;
    if (op.kind === "move" && r.state === "active")
      host.putBooking({ ...stored, record: { ...r, interval: op.interval } });
    if (op.kind === "release") host.putBooking({ ...stored, record: { ...r, state: "released" } });
    if (op.kind === "annotate") host.putBooking({ ...stored, record: { ...r, attendance: "completed" } });
  }
}

const overlapsWindow = (w: Interval) => (i: Interval) => i.start < w.end && w.start < i.end;
const key = (o: { resourceId: string; start: number; end: number }) => `${o.resourceId} ${o.start} ${o.end}`;

describe("HostState day index of active bookings", () => {
  it("a windowed read finds exactly the active bookings a full scan finds in the window", () => {
    fc.assert(
      fc.property(
        fc.array(opArb, { maxLength: 60 }),
        fc.array(intervalArb, { minLength: 1, maxLength: 5 }),
        (ops, windows) => {
          const host = new HostState("h");
          apply(host, ops);
          for (const w of windows) {
            const inWindow = overlapsWindow(w);
            const full = [...host.bookingsActive()].map((b) => b.record).filter((r) => inWindow(r.interval));
            const windowed = [...host.bookingsActive(w)]
              .map((b) => b.record)
              .filter((r) => inWindow(r.interval));
            expect(windowed.map((r) => r.bookingId).sort()).toEqual(full.map((r) => r.bookingId).sort());
            expect(windowed.every((r) => r.state === "active")).toBe(true);

            const all = host.agentOccupancy(T0).agent.filter(inWindow).map(key).sort();
            expect(host.agentOccupancy(T0, undefined, w).agent.map(key).sort()).toEqual(all);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it("a released or moved booking leaves the days it no longer occupies", () => {
    const host = new HostState("h");
    const first = booking(1, { start: T0 + 10 * HOUR, end: T0 + 11 * HOUR });
    host.putBooking({ record: first, types: ["chair"] });
    const day1 = { start: T0, end: T0 + DAY };
    const day3 = { start: T0 + 2 * DAY, end: T0 + 3 * DAY };
    expect([...host.bookingsActive(day1)]).toHaveLength(1);

    host.putBooking({
      record: { ...first, interval: { start: T0 + 2 * DAY + HOUR, end: T0 + 2 * DAY + 2 * HOUR } },
      types: [],
    });
    expect([...host.bookingsActive(day1)]).toHaveLength(0);
    expect([...host.bookingsActive(day3)]).toHaveLength(1);

    const moved = host.bookings.get("b1")?.record;
    if (moved === undefined) throw new Error("b1 is gone");
    host.putBooking({ record: { ...moved, state: "released" }, types: [] });
    expect([...host.bookingsActive(day3)]).toHaveLength(0);
    expect([...host.bookingsActive()]).toHaveLength(0);
  });
});
