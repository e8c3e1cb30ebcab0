import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { layBusyOnUnits, unitsFor } from "../../../src/booking/calendar/units.js";

const H = 3_600_000;

describe("capacity on a calendar", () => {
  it('"2 bays" are two stable resources; "me" is one person', () => {
    expect(unitsFor({ resourceType: "bay", units: 2 }).ids).toEqual(["bay-1", "bay-2"]);
    expect(unitsFor({ resourceType: "person", units: 1 }).ids).toEqual(["person-1"]);
  });

  it("each busy event occupies one unit; overlapping ones fill the next", () => {
    const laid = layBusyOnUnits(unitsFor({ resourceType: "bay", units: 2 }), [
      { start: 9 * H, end: 10 * H },
      { start: 9 * H, end: 11 * H },
      { start: 10 * H, end: 12 * H },
    ]);
    expect(laid.get("bay-1")).toEqual([{ start: 9 * H, end: 12 * H }]);
    expect(laid.get("bay-2")).toEqual([{ start: 9 * H, end: 11 * H }]);
  });

  it("an event from a mapped calendar occupies its resource, and others avoid it", () => {
    const laid = layBusyOnUnits(unitsFor({ resourceType: "bay", units: 2 }), [
      { start: 9 * H, end: 10 * H, resourceId: "bay-1" },
      { start: 9 * H, end: 10 * H },
    ]);
    expect(laid.get("bay-1")).toEqual([{ start: 9 * H, end: 10 * H }]);
    expect(laid.get("bay-2")).toEqual([{ start: 9 * H, end: 10 * H }]);
  });

  it("calendar time avoids a unit the gateway already booked when another unit is free", () => {
    const booked = new Map([["bay-1", [{ start: 9 * H, end: 10 * H }]]]);
    const laid = layBusyOnUnits(
      unitsFor({ resourceType: "bay", units: 2 }),
      [{ start: 9 * H, end: 10 * H }],
      booked,
    );
    expect(laid.get("bay-1")).toEqual([]);
    expect(laid.get("bay-2")).toEqual([{ start: 9 * H, end: 10 * H }]);
    // Both bays booked: the event must land on one of them (a conflict the sync reports).
    const full = new Map([
      ["bay-1", [{ start: 9 * H, end: 10 * H }]],
      ["bay-2", [{ start: 9 * H, end: 10 * H }]],
    ]);
    const forced = layBusyOnUnits(
      unitsFor({ resourceType: "bay", units: 2 }),
      [{ start: 9 * H, end: 10 * H }],
      full,
    );
    expect([...forced.values()].flat()).toEqual([{ start: 9 * H, end: 10 * H }]);
  });

  it("every unit is in the answer, empty when free (yesterday's busy time is replaced)", () => {
    const laid = layBusyOnUnits(unitsFor({ resourceType: "chair", units: 3 }), []);
    expect([...laid.entries()]).toEqual([
      ["chair-1", []],
      ["chair-2", []],
      ["chair-3", []],
    ]);
  });

  it("property: at every instant the busy units are min(units, overlapping events)", () => {
    const event = fc
      .tuple(fc.integer({ min: 0, max: 40 }), fc.integer({ min: 1, max: 12 }))
      .map(([s, d]) => ({ start: s * 15, end: (s + d) * 15 }));
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 4 }), fc.array(event, { maxLength: 25 }), (n, events) => {
        const laid = layBusyOnUnits(unitsFor({ resourceType: "bay", units: n }), events);
        for (let t = 0; t < 60 * 15; t += 15) {
          const depth = events.filter((e) => e.start <= t && e.end > t).length;
          const busy = [...laid.values()].filter((iv) => iv.some((i) => i.start <= t && i.end > t)).length;
          if (busy !== Math.min(n, depth)) return false;
        }
        return true;
      }),
    );
  });
});
