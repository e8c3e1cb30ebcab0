/**
 * zone.ts converts by arithmetic away from transitions and through Temporal near them; these
 * properties hold it to Temporal itself (the reference) on random instants and wall-clocks,
 * weighted towards the hours around real DST transitions.
 */
import fc from "fast-check";
import { Temporal } from "temporal-polyfill";
import { describe, expect, it } from "vitest";
import {
  addDays,
  formatInstant,
  instantToWallClock,
  isoWeekday,
  offsetMinutesAt,
  wallClockToInstant,
  type Disambiguation,
} from "../../../src/protocol/time/index.js";

const ZONES = [
  "America/Toronto",
  "America/Los_Angeles",
  "Europe/London",
  "Europe/Berlin",
  "Australia/Lord_Howe", // 30-minute DST
  "Pacific/Chatham", // +12:45 / +13:45
  "Asia/Kolkata",
  "America/Sao_Paulo", // DST abolished in 2019
  "Pacific/Apia", // skipped 2011-12-30 entirely
  "UTC",
];

/** Transition instants of each zone between 2000 and 2040, to aim the generators at. */
const transitions = (zone: string): number[] => {
  const out: number[] = [];
  let z: Temporal.ZonedDateTime | null = Temporal.Instant.fromEpochMilliseconds(
    Date.UTC(2000, 0, 1),
  ).toZonedDateTimeISO(zone);
  while (z !== null && z.epochMilliseconds < Date.UTC(2040, 0, 1)) {
    z = z.getTimeZoneTransition("next");
    if (z !== null) out.push(z.epochMilliseconds);
  }
  return out;
};
const TRANSITIONS = new Map(ZONES.map((z) => [z, transitions(z)]));

const instantIn = (zone: string) => {
  const near = TRANSITIONS.get(zone) ?? [];
  const anywhere = fc.integer({ min: Date.UTC(1800, 0, 1), max: Date.UTC(2100, 0, 1) });
  if (near.length === 0) return anywhere;
  return fc.oneof(
    anywhere,
    fc
      .tuple(fc.constantFrom(...near), fc.integer({ min: -36 * 3_600_000, max: 36 * 3_600_000 }))
      .map(([t, d]) => t + d - ((t + d) % 60_000)),
  );
};

const zoneAndInstant = fc
  .constantFrom(...ZONES)
  .chain((zone) => fc.tuple(fc.constant(zone), instantIn(zone)));

describe("zone conversions agree with Temporal (fast path vs reference)", () => {
  it("instantToWallClock and offsetMinutesAt", () => {
    fc.assert(
      fc.property(zoneAndInstant, ([zone, ms]) => {
        const z = Temporal.Instant.fromEpochMilliseconds(ms).toZonedDateTimeISO(zone);
        const w = instantToWallClock(ms, zone);
        expect([w.year, w.month, w.day, w.hour, w.minute, w.second, w.millisecond]).toEqual([
          z.year,
          z.month,
          z.day,
          z.hour,
          z.minute,
          z.second,
          z.millisecond,
        ]);
        expect(offsetMinutesAt(ms, zone)).toBe(z.offsetNanoseconds / 60e9);
      }),
      { numRuns: 3000 },
    );
  });

  it("wallClockToInstant, every disambiguation, including gaps and overlaps", () => {
    const modes: Disambiguation[] = ["compatible", "earlier", "later"];
    fc.assert(
      fc.property(zoneAndInstant, fc.constantFrom(...modes), ([zone, ms], mode) => {
        // The wall-clock read at some instant, nudged by up to ±90 minutes: lands in gaps too.
        const base = Temporal.Instant.fromEpochMilliseconds(ms).toZonedDateTimeISO(zone).toPlainDateTime();
        const local = base.add({ minutes: (Math.floor(ms / 60_000) % 181) - 90 });
        const expected = local.toZonedDateTime(zone, { disambiguation: mode }).epochMilliseconds;
        const got = wallClockToInstant(
          {
            year: local.year,
            month: local.month,
            day: local.day,
            hour: local.hour,
            minute: local.minute,
            second: local.second,
            millisecond: local.millisecond,
          },
          zone,
          mode,
        );
        expect(got).toEqual({ ok: true, value: expected });
      }),
      { numRuns: 3000 },
    );
  });

  it("formatInstant writes the offset in force at the instant", () => {
    fc.assert(
      fc.property(zoneAndInstant, ([zone, ms]) => {
        const z = Temporal.Instant.fromEpochMilliseconds(ms).toZonedDateTimeISO(zone);
        const text = formatInstant(ms, zone);
        if (Number.isInteger(z.offsetNanoseconds / 60e9)) {
          expect(Date.parse(text)).toBe(ms);
          expect(text.endsWith(z.offset === "+00:00" && zone === "UTC" ? "+00:00" : z.offset)).toBe(true);
        } else {
          expect(text.endsWith("Z")).toBe(true);
        }
      }),
      { numRuns: 2000 },
    );
  });
});

describe("calendar arithmetic agrees with Temporal.PlainDate", () => {
  it("isoWeekday and addDays over years 0000-9999", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 9999 }),
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 1, max: 28 }),
        fc.integer({ min: -4000, max: 4000 }),
        (year, month, day, n) => {
          const p = new Temporal.PlainDate(year, month, day);
          expect(isoWeekday({ year, month, day })).toBe(p.dayOfWeek);
          const q = p.add({ days: n });
          if (q.year < 0 || q.year > 9999) {
            expect(() => addDays({ year, month, day }, n)).toThrow(RangeError);
          } else {
            expect(addDays({ year, month, day }, n)).toEqual({ year: q.year, month: q.month, day: q.day });
          }
        },
      ),
      { numRuns: 5000 },
    );
  });
});
