/** The span zone view answers exactly as the src/protocol/time functions it memoizes. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { spanZoneView, weekdayOf } from "../../../src/booking/rules/index.js";
import { formatInstant, instantToWallClock, isoWeekday } from "../../../src/protocol/time/index.js";

const DAY = 86_400_000;
const at = (iso: string): number => Date.parse(iso);
const ZONES = [
  "America/Toronto",
  "Europe/London",
  "Australia/Lord_Howe",
  "Asia/Kolkata",
  "America/St_Johns",
  "UTC",
];
const BASES = [
  at("2026-03-08T00:00:00Z"),
  at("2026-03-29T00:00:00Z"),
  at("2026-04-04T12:00:00Z"),
  at("2026-10-03T12:00:00Z"),
  at("2026-10-25T00:00:00Z"),
  at("2026-11-01T00:00:00Z"),
  at("2026-06-15T00:00:00Z"),
];

describe("spanZoneView ≡ protocol time", () => {
  it("wallClock and format agree with instantToWallClock and formatInstant, in and out of the span", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...ZONES, "Pacific/Chatham", "Africa/Casablanca"),
        fc.constantFrom(...BASES),
        fc.integer({ min: -5 * DAY, max: 5 * DAY }),
        (zone, base, delta) => {
          const view = spanZoneView(zone, { start: base - DAY, end: base + DAY });
          const t = base + delta;
          expect(view.wallClock(t)).toEqual(instantToWallClock(t, zone));
          expect(view.format(t)).toBe(formatInstant(t, zone));
        },
      ),
      { numRuns: 300 },
    );
  });

  it("weekdayOf is the ISO weekday", () => {
    fc.assert(
      fc.property(
        fc.date({
          min: new Date("0001-01-01T00:00:00Z"),
          max: new Date("9999-12-31T00:00:00Z"),
          noInvalidDate: true,
        }),
        (d) => {
          const date = { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate() };
          expect(weekdayOf(date)).toBe(isoWeekday(date));
        },
      ),
      { numRuns: 200 },
    );
  });
});
