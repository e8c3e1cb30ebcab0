import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { WallClock } from "../../../src/protocol/time/rfc3339.js";
import {
  formatInstant,
  instantToWallClock,
  isValidTimeZone,
  offsetMinutesAt,
  wallClockToInstant,
  type Disambiguation,
} from "../../../src/protocol/time/zone.js";

const wall = (y: number, mo: number, d: number, h = 0, mi = 0, s = 0, ms = 0): WallClock => ({
  year: y,
  month: mo,
  day: d,
  hour: h,
  minute: mi,
  second: s,
  millisecond: ms,
});

type Expected = number | "nonexistent_local_time" | "ambiguous_local_time";

// Each row: zone, local wall-clock, then the expected instant under compatible, earlier, later
// and reject. Instants are written with Date.UTC so they do not depend on the zone code.
const DST_CASES: [string, string, WallClock, Expected, Expected, Expected, Expected][] = [
  // America/Toronto 2026: EST -> EDT at 02:00 on 8 March, EDT -> EST at 02:00 on 1 November.
  [
    "America/Toronto",
    "gap",
    wall(2026, 3, 8, 2, 30),
    Date.UTC(2026, 2, 8, 7, 30),
    Date.UTC(2026, 2, 8, 6, 30),
    Date.UTC(2026, 2, 8, 7, 30),
    "nonexistent_local_time",
  ],
  [
    "America/Toronto",
    "overlap",
    wall(2026, 11, 1, 1, 30),
    Date.UTC(2026, 10, 1, 5, 30),
    Date.UTC(2026, 10, 1, 5, 30),
    Date.UTC(2026, 10, 1, 6, 30),
    "ambiguous_local_time",
  ],
  // Europe/London 2026: GMT -> BST at 01:00 on 29 March, BST -> GMT at 02:00 on 25 October.
  [
    "Europe/London",
    "gap",
    wall(2026, 3, 29, 1, 30),
    Date.UTC(2026, 2, 29, 1, 30),
    Date.UTC(2026, 2, 29, 0, 30),
    Date.UTC(2026, 2, 29, 1, 30),
    "nonexistent_local_time",
  ],
  [
    "Europe/London",
    "overlap",
    wall(2026, 10, 25, 1, 30),
    Date.UTC(2026, 9, 25, 0, 30),
    Date.UTC(2026, 9, 25, 0, 30),
    Date.UTC(2026, 9, 25, 1, 30),
    "ambiguous_local_time",
  ],
  // Australia/Lord_Howe: a 30-minute shift, +10:30 <-> +11:00, at 02:00 on the first Sunday
  // of October (4 Oct 2026) and of April (5 Apr 2026).
  [
    "Australia/Lord_Howe",
    "gap",
    wall(2026, 10, 4, 2, 15),
    Date.UTC(2026, 9, 3, 15, 45),
    Date.UTC(2026, 9, 3, 15, 15),
    Date.UTC(2026, 9, 3, 15, 45),
    "nonexistent_local_time",
  ],
  [
    "Australia/Lord_Howe",
    "overlap",
    wall(2026, 4, 5, 1, 45),
    Date.UTC(2026, 3, 4, 14, 45),
    Date.UTC(2026, 3, 4, 14, 45),
    Date.UTC(2026, 3, 4, 15, 15),
    "ambiguous_local_time",
  ],
  // Australia/Sydney (southern hemisphere): AEST -> AEDT at 02:00 on 4 Oct 2026, back at 03:00 on 5 Apr 2026.
  [
    "Australia/Sydney",
    "gap",
    wall(2026, 10, 4, 2, 30),
    Date.UTC(2026, 9, 3, 16, 30),
    Date.UTC(2026, 9, 3, 15, 30),
    Date.UTC(2026, 9, 3, 16, 30),
    "nonexistent_local_time",
  ],
  [
    "Australia/Sydney",
    "overlap",
    wall(2026, 4, 5, 2, 30),
    Date.UTC(2026, 3, 4, 15, 30),
    Date.UTC(2026, 3, 4, 15, 30),
    Date.UTC(2026, 3, 4, 16, 30),
    "ambiguous_local_time",
  ],
];

const MODES: Disambiguation[] = ["compatible", "earlier", "later", "reject"];

describe("wallClockToInstant across DST (OSBP Time Discipline: DST-correct conversion)", () => {
  describe.each(DST_CASES)("%s %s", (zone, _kind, w, ...expected) => {
    it.each(MODES.map((mode, i) => [mode, expected[i]] as const))("under %s", (mode, want) => {
      const r = wallClockToInstant(w, zone, mode, "/starts_at_local");
      if (typeof want === "number") {
        expect(r).toEqual({ ok: true, value: want });
      } else {
        expect(r).toMatchObject({ ok: false, error: { code: want, field: "/starts_at_local" } });
      }
    });
  });

  it("defaults to compatible: a gap moves forward, an overlap takes the earlier instant", () => {
    expect(wallClockToInstant(wall(2026, 3, 8, 2, 30), "America/Toronto")).toEqual({
      ok: true,
      value: Date.UTC(2026, 2, 8, 7, 30),
    });
    expect(formatInstant(Date.UTC(2026, 2, 8, 7, 30), "America/Toronto")).toBe("2026-03-08T03:30:00-04:00");
    expect(wallClockToInstant(wall(2026, 11, 1, 1, 30), "America/Toronto")).toEqual({
      ok: true,
      value: Date.UTC(2026, 10, 1, 5, 30),
    });
    expect(formatInstant(Date.UTC(2026, 10, 1, 5, 30), "America/Toronto")).toBe("2026-11-01T01:30:00-04:00");
  });

  it("America/Los_Angeles 2026-05-05T13:00 is 20:00Z (the OSBP availability.find example)", () => {
    for (const mode of MODES) {
      expect(wallClockToInstant(wall(2026, 5, 5, 13), "America/Los_Angeles", mode)).toEqual({
        ok: true,
        value: Date.UTC(2026, 4, 5, 20),
      });
    }
    expect(formatInstant(Date.UTC(2026, 4, 5, 20))).toBe("2026-05-05T20:00:00Z");
    expect(instantToWallClock(Date.UTC(2026, 4, 5, 20), "America/Los_Angeles")).toEqual(wall(2026, 5, 5, 13));
  });

  it("refuses a bad zone or wall-clock with an error naming the field", () => {
    expect(wallClockToInstant(wall(2026, 5, 5, 13), "Mars/Olympus", "compatible", "/tz")).toMatchObject({
      ok: false,
      error: { code: "invalid_time_zone", field: "/tz" },
    });
    expect(wallClockToInstant(wall(2026, 2, 30, 13), "UTC", "compatible", "/w")).toMatchObject({
      ok: false,
      error: { code: "invalid_wall_clock", field: "/w" },
    });
  });

  it("round-trips every instant through its wall-clock (earlier or later side of an overlap)", () => {
    const zones = [
      "America/Toronto",
      "Europe/London",
      "Australia/Lord_Howe",
      "Australia/Sydney",
      "Asia/Kolkata",
      "America/St_Johns",
    ];
    fc.assert(
      fc.property(
        fc.integer({ min: Date.UTC(2000, 0, 1), max: Date.UTC(2040, 0, 1) }),
        fc.constantFrom(...zones),
        (ms, zone) => {
          const w = instantToWallClock(ms, zone);
          const earlier = wallClockToInstant(w, zone, "earlier");
          const later = wallClockToInstant(w, zone, "later");
          const compatible = wallClockToInstant(w, zone);
          expect(earlier.ok && later.ok && compatible.ok).toBe(true);
          if (earlier.ok && later.ok && compatible.ok) {
            expect([earlier.value, later.value]).toContain(ms);
            expect(compatible.value).toBe(earlier.value);
          }
        },
      ),
    );
  });
});

describe("formatInstant and offsetMinutesAt", () => {
  it.each([
    [Date.UTC(2026, 9, 15, 17), "America/Toronto", "2026-10-15T13:00:00-04:00", -240],
    [Date.UTC(2026, 0, 15, 17), "America/Toronto", "2026-01-15T12:00:00-05:00", -300],
    [Date.UTC(2026, 9, 15, 17, 0, 0, 5), "America/Toronto", "2026-10-15T13:00:00.005-04:00", -240],
    [Date.UTC(2026, 9, 15, 17), "UTC", "2026-10-15T17:00:00+00:00", 0],
    [Date.UTC(2026, 9, 15, 17), "Asia/Kolkata", "2026-10-15T22:30:00+05:30", 330],
    [Date.UTC(2026, 0, 15, 12), "Australia/Lord_Howe", "2026-01-15T23:00:00+11:00", 660],
    [Date.UTC(2026, 6, 15, 12), "Australia/Lord_Howe", "2026-07-15T22:30:00+10:30", 630],
    [Date.UTC(2026, 6, 15, 12), "America/St_Johns", "2026-07-15T09:30:00-02:30", -150],
    [Date.UTC(2026, 0, 15, 12), "America/St_Johns", "2026-01-15T08:30:00-03:30", -210],
    [Date.UTC(2026, 0, 15, 12), "Pacific/Chatham", "2026-01-16T01:45:00+13:45", 825],
  ])("%i in %s", (ms, zone, text, offset) => {
    expect(formatInstant(ms, zone)).toBe(text);
    expect(offsetMinutesAt(ms, zone)).toBe(offset);
  });

  it.each([
    [Date.UTC(2026, 9, 15, 17), "2026-10-15T17:00:00Z"],
    [Date.UTC(2026, 9, 15, 17, 0, 0, 120), "2026-10-15T17:00:00.120Z"],
    [0, "1970-01-01T00:00:00Z"],
  ])("%i without a zone is UTC with Z", (ms, text) => {
    expect(formatInstant(ms)).toBe(text);
  });

  it("writes an instant in UTC where the zone's offset is not whole minutes (local mean time)", () => {
    const ms = Date.UTC(1850, 0, 1);
    expect(Number.isInteger(offsetMinutesAt(ms, "America/Toronto"))).toBe(false);
    expect(formatInstant(ms, "America/Toronto")).toBe("1850-01-01T00:00:00Z");
  });

  it.each([
    () => formatInstant(1.5),
    () => formatInstant(0, "Mars/Olympus"),
    () => formatInstant(Date.UTC(10000, 0, 1)),
    () => instantToWallClock(0, "+05:00"),
    () => offsetMinutesAt(Number.NaN, "UTC"),
  ])("throws TypeError for programmer errors (%#)", (call) => {
    expect(call).toThrow(TypeError);
  });
});

describe("isValidTimeZone (IANA names in their exact spelling)", () => {
  it.each([
    "America/Toronto",
    "America/Los_Angeles",
    "Europe/London",
    "Australia/Lord_Howe",
    "UTC",
    "Etc/UTC",
    "Asia/Kolkata",
  ])("%s is a zone", (tz) => {
    expect(isValidTimeZone(tz)).toBe(true);
  });

  it.each([
    "",
    "america/toronto",
    "AMERICA/TORONTO",
    "+05:00",
    "-04:00",
    "Z",
    "UTC+5",
    "Mars/Olympus",
    "America/Toronto ",
    "America/Toronto\n",
  ])("%j is not", (tz) => {
    expect(isValidTimeZone(tz)).toBe(false);
  });
});
