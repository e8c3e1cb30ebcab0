/**
 * The synthetic platform computes hours with its own code (an outside system's); these tests
 * check it against the gateway's src/calendar (SchCP §4.1 hours, §4.2 until_close) on every
 * start, across DST changes, both for one slot (directHours) and for an availability grid
 * (rangeHours), so a disagreement between the platform and the gateway shows here.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { CatalogResource, WeeklyPeriod } from "../../../src/connectors/port.js";
import { gridStarts } from "../../../src/connectors/synthetic/availability.js";
import {
  directHours,
  rangeHours,
  STRETCH_CAP_MS,
  workingStretches,
} from "../../../src/connectors/synthetic/hours.js";
import { isWithinWorkingHours, workingStretchEnd } from "../../../src/calendar/index.js";
import { DAY, hhmm, HOUR, MIN, t } from "./support.js";

const ZONES = [
  "America/Toronto",
  "America/Vancouver",
  "Australia/Lord_Howe",
  "Asia/Kolkata",
  "Europe/London",
  "UTC",
];
/** Days around the 2026 DST changes of those zones, and an ordinary one. */
const DAYS = [
  "2026-03-07",
  "2026-03-08",
  "2026-03-28",
  "2026-04-04",
  "2026-10-03",
  "2026-10-24",
  "2026-10-31",
  "2026-06-15",
];

const time = fc
  .tuple(fc.integer({ min: 0, max: 23 }), fc.constantFrom(0, 15, 30, 45))
  .map(([h, m]) => `${String(h).padStart(2, "0")}:${String(m).padStart(2, "0")}`);
const period: fc.Arbitrary<WeeklyPeriod> = fc.record({
  day: fc.constantFrom(1, 2, 3, 4, 5, 6, 7),
  open: time,
  close: fc.oneof(time, fc.constant("24:00")),
});

const resource = (hours: readonly WeeklyPeriod[]): CatalogResource => ({
  id: "r",
  type: "x",
  name: "R",
  capacity: 1,
  hours,
});

describe("rangeHours matches isWithinWorkingHours and workingStretchEnd", () => {
  it("on every half-hour start of 36 hours around DST changes, for random weekly hours", () => {
    fc.assert(
      fc.property(
        fc.array(period, { minLength: 1, maxLength: 4 }),
        fc.constantFrom(...ZONES),
        fc.constantFrom(...DAYS),
        fc.constantFrom(15 * MIN, 45 * MIN, HOUR, 90 * MIN, 10 * HOUR),
        (hours, zone, day, length) => {
          const from = t(`${day}T00:00:00Z`);
          const range = { start: from, end: from + 2 * DAY + length + STRETCH_CAP_MS };
          const view = rangeHours(zone, range);
          const r = resource(hours);
          for (let at = from; at < from + 36 * HOUR; at += 30 * MIN) {
            const interval = { start: at, end: at + length };
            expect(view.within(r, interval), `${zone} ${new Date(at).toISOString()}`).toBe(
              isWithinWorkingHours(hours, zone, interval),
            );
            expect(view.stretchEnd(r, at)).toBe(workingStretchEnd(hours, zone, at));
          }
        },
      ),
      { numRuns: 30 },
    );
  });

  it("directHours (creates and moves) agrees too, one question at a time", () => {
    fc.assert(
      fc.property(
        fc.array(period, { minLength: 1, maxLength: 4 }),
        fc.constantFrom(...ZONES),
        fc.constantFrom(...DAYS),
        fc.constantFrom(15 * MIN, HOUR, 10 * HOUR, 30 * HOUR),
        fc.integer({ min: 0, max: 4 * 24 - 1 }),
        (hours, zone, day, length, quarter) => {
          const at = t(`${day}T00:00:00Z`) + quarter * 15 * MIN;
          const view = directHours(zone);
          const r = resource(hours);
          const interval = { start: at, end: at + length };
          expect(view.within(r, interval)).toBe(isWithinWorkingHours(hours, zone, interval));
          expect(view.stretchEnd(r, at)).toBe(workingStretchEnd(hours, zone, at));
        },
      ),
      { numRuns: 300 },
    );
  });

  it("a resource that never closes is one stretch, longer than working-hours' one-week cut", () => {
    const always = ([1, 2, 3, 4, 5, 6, 7] as const).map((day) => ({ day, open: "00:00", close: "24:00" }));
    const start = t("2026-10-01T00:00:00Z");
    const stretches = workingStretches(always, "America/Toronto", { start, end: start + 20 * DAY });
    expect(stretches).toHaveLength(1);
    expect(stretches[0]!.start).toBeLessThanOrEqual(start);
    expect(stretches[0]!.end).toBeGreaterThanOrEqual(start + 20 * DAY);
  });
});

describe("gridStarts: local quarter hours from midnight", () => {
  it("Toronto spring forward: 01:45 EST is followed by 03:00 EDT", () => {
    const from = t("2026-03-08T01:00:00-05:00");
    const starts = gridStarts(from, from + 2 * HOUR, 15 * MIN, "America/Toronto");
    expect(starts.map((s) => hhmm(s, "America/Toronto"))).toEqual([
      "01:00",
      "01:15",
      "01:30",
      "01:45",
      "03:00",
      "03:15",
      "03:30",
      "03:45",
    ]);
  });

  it("Kolkata (UTC+05:30) is aligned to its own clock, not to UTC", () => {
    const from = t("2026-10-19T09:05:00+05:30");
    const starts = gridStarts(from, from + HOUR, 60 * MIN, "Asia/Kolkata");
    expect(starts.map((s) => hhmm(s, "Asia/Kolkata"))).toEqual(["10:00"]);
  });

  it("Lord Howe's half-hour DST change keeps an hourly grid on the hour", () => {
    const from = t("2026-10-03T12:00:00Z");
    const starts = gridStarts(from, from + 6 * HOUR, HOUR, "Australia/Lord_Howe");
    expect(starts.every((s) => hhmm(s, "Australia/Lord_Howe").endsWith(":00"))).toBe(true);
  });
});
