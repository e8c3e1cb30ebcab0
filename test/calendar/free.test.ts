/**
 * Busy, free and slot arithmetic for calendar-fallback hosts (src/calendar/busy.ts, free.ts):
 * examples in a DST zone, and properties against brute force on a minute grid.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  busyIntervals,
  expandEvents,
  freeIntervals,
  slotStarts,
  subtractIntervals,
  type Interval,
  type RawCalendarEvent,
  type WeeklyHours,
} from "../../src/calendar/index.js";

const at = (iso: string): number => Date.parse(iso);
const iso = (i: Interval): [string, string] => [
  new Date(i.start).toISOString(),
  new Date(i.end).toISOString(),
];
const MIN = 60_000;
const weekdays = (open: string, close: string): WeeklyHours =>
  ([1, 2, 3, 4, 5] as const).map((day) => ({ day, open, close }));

describe("busyIntervals", () => {
  it("merges opaque occurrences and drops cancelled, transparent and zero-length ones", () => {
    expect(
      busyIntervals([
        { start: 10, end: 20, status: "CONFIRMED", transparent: false },
        { start: 15, end: 30, status: null, transparent: false },
        { start: 30, end: 40, status: "TENTATIVE", transparent: false },
        { start: 50, end: 60, status: "CANCELLED", transparent: false },
        { start: 70, end: 80, status: "CONFIRMED", transparent: true },
        { start: 90, end: 90, status: "CONFIRMED", transparent: false },
        { start: "1970-01-01T00:00:01Z", end: "1970-01-01T00:00:02Z", status: null, transparent: false },
      ]),
    ).toEqual([
      { start: 10, end: 40 },
      { start: 1000, end: 2000 },
    ]);
  });
});

describe("freeIntervals", () => {
  const zone = "Europe/Berlin";

  it("working hours in the host's zone minus busy time", () => {
    const free = freeIntervals({
      hours: weekdays("09:00", "17:00"),
      zone,
      busy: [
        { start: at("2026-03-02T09:00:00Z"), end: at("2026-03-02T10:00:00Z") }, // 10-11 Berlin
        { start: at("2026-03-02T15:30:00Z"), end: at("2026-03-02T18:00:00Z") }, // past closing
      ],
      window: { start: at("2026-03-01T00:00:00Z"), end: at("2026-03-03T00:00:00Z") },
    });
    expect(free.map(iso)).toEqual([
      ["2026-03-02T08:00:00.000Z", "2026-03-02T09:00:00.000Z"],
      ["2026-03-02T10:00:00.000Z", "2026-03-02T15:30:00.000Z"],
    ]);
  });

  it("periods past midnight and the DST change (Sunday 29 March 2026 loses 02:00-03:00)", () => {
    const free = freeIntervals({
      hours: [
        { day: 6, open: "22:00", close: "02:00" },
        { day: 7, open: "01:00", close: "05:00" },
      ],
      zone,
      busy: [],
      window: { start: at("2026-03-28T00:00:00Z"), end: at("2026-03-30T00:00:00Z") },
    });
    // Sat 22:00 CET to Sun 05:00 CEST, one stretch (the periods overlap): 6 hours by the clock.
    expect(free.map(iso)).toEqual([["2026-03-28T21:00:00.000Z", "2026-03-29T03:00:00.000Z"]]);
  });

  it("clips to the window", () => {
    const free = freeIntervals({
      hours: weekdays("09:00", "17:00"),
      zone,
      busy: [],
      window: { start: at("2026-03-02T12:00:00Z"), end: at("2026-03-02T13:00:00Z") },
    });
    expect(free.map(iso)).toEqual([["2026-03-02T12:00:00.000Z", "2026-03-02T13:00:00.000Z"]]);
  });

  it("from synced events: a weekly meeting, one instance cancelled", () => {
    const events: RawCalendarEvent[] = [
      {
        uid: "m",
        eventId: "m",
        status: "confirmed",
        transparency: "opaque",
        start: { dateTime: "2026-03-02T13:00:00", zone },
        end: { dateTime: "2026-03-02T14:00:00", zone },
        rrule: "FREQ=DAILY;BYDAY=MO,TU",
      },
      {
        uid: "m",
        eventId: "m-2",
        status: "cancelled",
        transparency: "opaque",
        recurrenceId: { dateTime: "2026-03-03T13:00:00", zone },
        start: { dateTime: "2026-03-03T13:00:00", zone },
        end: { dateTime: "2026-03-03T14:00:00", zone },
      },
    ];
    const window = { start: at("2026-03-02T00:00:00Z"), end: at("2026-03-04T00:00:00Z") };
    const busy = busyIntervals(expandEvents(events, { from: window.start, to: window.end }).occurrences);
    const free = freeIntervals({ hours: weekdays("12:00", "15:00"), zone, busy, window });
    expect(free.map(iso)).toEqual([
      ["2026-03-02T11:00:00.000Z", "2026-03-02T12:00:00.000Z"],
      ["2026-03-02T13:00:00.000Z", "2026-03-02T14:00:00.000Z"],
      ["2026-03-03T11:00:00.000Z", "2026-03-03T14:00:00.000Z"],
    ]);
  });
});

describe("slotStarts", () => {
  const free: Interval[] = [{ start: at("2026-03-02T08:00:00Z"), end: at("2026-03-02T10:00:00Z") }];

  it("grid starts whose duration and buffer fit", () => {
    const s = slotStarts(free, { duration: 30 * MIN, buffer: 15 * MIN, granularity: 15 * MIN, now: 0 });
    expect(s.map((t) => new Date(t).toISOString().slice(11, 16))).toEqual([
      "08:00",
      "08:15",
      "08:30",
      "08:45",
      "09:00",
      "09:15",
    ]);
  });

  it("minimum notice, horizon and anchor", () => {
    const now = at("2026-03-02T07:10:00Z");
    const s = slotStarts(free, {
      duration: 30 * MIN,
      granularity: 30 * MIN,
      anchor: at("2026-03-02T00:10:00Z"),
      now,
      minNotice: 60 * MIN,
      horizon: 2 * 60 * MIN,
    });
    expect(s.map((t) => new Date(t).toISOString().slice(11, 16))).toEqual(["08:10", "08:40", "09:10"]);
  });

  it("refuses a zero granularity or duration", () => {
    expect(() => slotStarts(free, { duration: 0, granularity: MIN, now: 0 })).toThrow(RangeError);
    expect(() => slotStarts(free, { duration: MIN, granularity: 0, now: 0 })).toThrow(RangeError);
  });
});

describe("properties against a minute grid", () => {
  const intervals = fc
    .array(fc.tuple(fc.integer({ min: 0, max: 300 }), fc.integer({ min: 1, max: 60 })), { maxLength: 8 })
    .map((xs) => xs.map(([s, len]) => ({ start: s * MIN, end: (s + len) * MIN })));
  const covered = (xs: readonly Interval[], m: number): boolean =>
    xs.some((i) => i.start <= m * MIN && m * MIN < i.end);

  it("subtractIntervals: a minute is free exactly when open and not busy; the answer is sorted and disjoint", () => {
    fc.assert(
      fc.property(intervals, intervals, (open, busy) => {
        const free = subtractIntervals(open, busy);
        for (let m = 0; m < 400; m++) expect(covered(free, m)).toBe(covered(open, m) && !covered(busy, m));
        for (let i = 1; i < free.length; i++) expect(free[i]!.start).toBeGreaterThan(free[i - 1]!.end);
      }),
    );
  });

  it("slotStarts: exactly the grid starts from now + notice to now + horizon whose whole slot is free", () => {
    fc.assert(
      fc.property(
        intervals,
        fc.integer({ min: 1, max: 45 }),
        fc.integer({ min: 0, max: 20 }),
        fc.constantFrom(5, 10, 15),
        fc.integer({ min: 0, max: 200 }),
        fc.integer({ min: 0, max: 400 }),
        (free, duration, buffer, step, now, horizon) => {
          const s = slotStarts(free, {
            duration: duration * MIN,
            buffer: buffer * MIN,
            granularity: step * MIN,
            now: now * MIN,
            minNotice: 10 * MIN,
            horizon: horizon * MIN,
          });
          const merged = subtractIntervals(free, []);
          const want: number[] = [];
          for (let m = 0; m <= 400; m += step) {
            const fits = merged.some((f) => f.start <= m * MIN && (m + duration + buffer) * MIN <= f.end);
            if (fits && m >= now + 10 && m <= now + horizon) want.push(m * MIN);
          }
          expect(s).toEqual(want);
        },
      ),
    );
  });
});
