/**
 * The hours index must answer exactly as the functions it stands in for
 * (src/calendar/working-hours.ts), with the booking core's memoized span zone view as its
 * clock: property tests over zones with DST
 * (including Lord Howe's half-hour shift), overnight periods, 24:00 closes and 24-hour days.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { spanZoneView } from "../../src/booking/rules/index.js";
import {
  HoursIndex,
  isWithinWorkingHours,
  workingStretchEnd,
  type WorkingPeriod,
} from "../../src/calendar/index.js";

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;
const at = (iso: string): number => Date.parse(iso);

const ZONES = [
  "America/Toronto",
  "Europe/London",
  "Australia/Lord_Howe",
  "Asia/Kolkata",
  "America/St_Johns",
  "UTC",
];
/** Days with a DST change somewhere in ZONES, and an ordinary one. */
const BASES = [
  at("2026-03-08T00:00:00Z"),
  at("2026-03-29T00:00:00Z"),
  at("2026-04-04T12:00:00Z"),
  at("2026-10-03T12:00:00Z"),
  at("2026-10-25T00:00:00Z"),
  at("2026-11-01T00:00:00Z"),
  at("2026-06-15T00:00:00Z"),
];

const hhmm = (minutes: number) =>
  `${String(Math.floor(minutes / 60)).padStart(2, "0")}:${String(minutes % 60).padStart(2, "0")}`;
/** Biased toward the edge cases: a 24-hour day (close = open), overnight, and 24:00. */
const period = fc
  .record({
    day: fc.integer({ min: 1, max: 7 }),
    openQ: fc.integer({ min: 0, max: 95 }),
    kind: fc.constantFrom("same", "overnight", "midnight", "any", "any"),
    q: fc.integer({ min: 1, max: 95 }),
  })
  .map(({ day, openQ, kind, q }): WorkingPeriod => {
    const open = hhmm(openQ * 15);
    const close =
      kind === "same"
        ? open
        : kind === "midnight"
          ? "24:00"
          : kind === "overnight"
            ? hhmm(((openQ + 96 - q) % 96) * 15)
            : hhmm(((openQ + q) % 96) * 15);
    return { day: day as WorkingPeriod["day"], open, close };
  });
const weekly = fc.array(period, { minLength: 0, maxLength: 9 });

describe("HoursIndex ≡ working-hours.ts (SchCP §4.1, §4.2)", () => {
  it("covers(r, interval) = isWithinWorkingHours, stretchEnd = workingStretchEnd", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...ZONES),
        fc.constantFrom(...BASES),
        weekly,
        fc.integer({ min: -2 * 96, max: 2 * 96 }),
        fc.integer({ min: 1, max: 40 }),
        (zone, base, hours, offsetQ, lengthQ) => {
          const start = base + offsetQ * 15 * MIN;
          const interval = { start, end: start + lengthQ * 15 * MIN };
          const span = { start: base - 3 * DAY, end: base + 11 * DAY };
          const index = new HoursIndex(spanZoneView(zone, span), span);
          const r = { zone, hours };
          expect(index.covers(r, interval)).toBe(isWithinWorkingHours(hours, zone, interval));
          expect(index.stretchEnd(r, start)).toBe(workingStretchEnd(hours, zone, start));
        },
      ),
      { numRuns: 150 },
    );
  });

  it("asks working-hours.ts outside its span or for another zone", () => {
    const hours: WorkingPeriod[] = [{ day: 4, open: "08:00", close: "18:00" }];
    const span = { start: at("2026-10-15T12:00:00Z"), end: at("2026-10-15T13:00:00Z") };
    const index = new HoursIndex(spanZoneView("America/Toronto", span), span);
    const late = { start: at("2026-10-22T13:00:00Z"), end: at("2026-10-22T14:00:00Z") };
    expect(index.covers({ zone: "America/Toronto", hours }, late)).toBe(true);
    const elsewhere = { zone: "Asia/Tokyo", hours };
    expect(index.covers(elsewhere, { start: span.start, end: span.start + HOUR })).toBe(
      isWithinWorkingHours(hours, "Asia/Tokyo", { start: span.start, end: span.start + HOUR }),
    );
  });
});
