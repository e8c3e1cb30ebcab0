/**
 * The zone frames of recurrence/zones.ts against src/protocol/time (Temporal): the arithmetic
 * fast path away from transitions must give Temporal's answer everywhere, gaps and overlaps
 * included ("compatible"), in zones with odd transitions (half-hour DST on Lord Howe, Samoa
 * skipping 30 December 2011, a 2-hour DST shift at Troll).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ianaZone, ZoneResolver, UTC } from "../../../src/calendar/recurrence/zones.js";
import { instantToWallClock, wallClockToInstant } from "../../../src/protocol/time/index.js";

const ZONES = [
  "Europe/Berlin",
  "America/New_York",
  "Australia/Lord_Howe",
  "Pacific/Apia",
  "Antarctica/Troll",
  "Asia/Kolkata",
];

describe("ianaZone", () => {
  it("toInstant and toLocal agree with Temporal", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...ZONES),
        fc
          .integer({ min: Date.UTC(2005, 0, 1), max: Date.UTC(2030, 0, 1) })
          .map((t) => Math.floor(t / 60_000) * 60_000),
        (zone, local) => {
          const d = new Date(local);
          const w = {
            year: d.getUTCFullYear(),
            month: d.getUTCMonth() + 1,
            day: d.getUTCDate(),
            hour: d.getUTCHours(),
            minute: d.getUTCMinutes(),
            second: 0,
            millisecond: 0,
          };
          const want = wallClockToInstant(w, zone, "compatible");
          expect(want.ok).toBe(true);
          if (want.ok) expect(ianaZone(zone).toInstant(local)).toBe(want.value);
          const back = instantToWallClock(local, zone);
          expect(ianaZone(zone).toLocal(local)).toBe(
            Date.UTC(
              back.year,
              back.month - 1,
              back.day,
              back.hour,
              back.minute,
              back.second,
              back.millisecond,
            ),
          );
        },
      ),
      { numRuns: 2000 },
    );
  });

  it("a gap moves forward, an overlap takes the earlier instant", () => {
    const ny = ianaZone("America/New_York");
    expect(new Date(ny.toInstant(Date.UTC(2026, 2, 8, 2, 30))).toISOString()).toBe(
      "2026-03-08T07:30:00.000Z",
    );
    expect(new Date(ny.toInstant(Date.UTC(2026, 10, 1, 1, 30))).toISOString()).toBe(
      "2026-11-01T05:30:00.000Z",
    );
  });
});

describe("ZoneResolver", () => {
  it("reads IANA (any case), Windows and path-suffixed names, and reports unknown ones", () => {
    const r = new ZoneResolver(UTC);
    expect(r.resolve("europe/berlin").id).toBe("Europe/Berlin");
    expect(r.resolve("Tokyo Standard Time").id).toBe("Asia/Tokyo");
    expect(r.resolve("/citadel.org/20190914_1/America/Chicago").id).toBe("America/Chicago");
    expect(r.resolve("Made Up Time")).toBe(UTC);
    expect([...r.unknown]).toEqual(["Made Up Time"]);
  });
});
