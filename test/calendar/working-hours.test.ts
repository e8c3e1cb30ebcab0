/** src/calendar: weekly hours and their evaluation in IANA zones (SchCP §4.1, §4.2 until_close). */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  isWithinWorkingHours,
  parseWorkingHours,
  type WeeklyHours,
  workingStretchEnd,
} from "../../src/calendar/index.js";

const TO = "America/Toronto";
const z = (iso: string) => Date.parse(iso);
const iv = (from: string, to: string) => ({ start: z(from), end: z(to) });
const weekdays = (open: string, close: string): WeeklyHours =>
  ([1, 2, 3, 4, 5] as const).map((day) => ({ day, open, close }));

describe("isWithinWorkingHours", () => {
  const nineToFive = weekdays("09:00", "17:00");

  it("an ordinary Monday in winter (EST, UTC−5) covers the whole interval or nothing", () => {
    expect(isWithinWorkingHours(nineToFive, TO, iv("2030-01-07T14:00Z", "2030-01-07T22:00Z"))).toBe(true);
    expect(isWithinWorkingHours(nineToFive, TO, iv("2030-01-07T13:59Z", "2030-01-07T15:00Z"))).toBe(false);
    expect(isWithinWorkingHours(nineToFive, TO, iv("2030-01-07T21:00Z", "2030-01-07T22:01Z"))).toBe(false);
    // Saturday is closed.
    expect(isWithinWorkingHours(nineToFive, TO, iv("2030-01-12T15:00Z", "2030-01-12T16:00Z"))).toBe(false);
  });

  it("in summer the same wall-clock hours are EDT (UTC−4)", () => {
    expect(isWithinWorkingHours(nineToFive, TO, iv("2030-07-08T13:00Z", "2030-07-08T21:00Z"))).toBe(true);
    expect(isWithinWorkingHours(nineToFive, TO, iv("2030-07-08T21:00Z", "2030-07-08T21:30Z"))).toBe(false);
  });

  it("spring forward (Sunday 10 March 2030): 01:00–05:00 lasts three real hours", () => {
    const sunday: WeeklyHours = [{ day: 7, open: "01:00", close: "05:00" }];
    expect(isWithinWorkingHours(sunday, TO, iv("2030-03-10T06:00Z", "2030-03-10T09:00Z"))).toBe(true);
    expect(isWithinWorkingHours(sunday, TO, iv("2030-03-10T06:00Z", "2030-03-10T09:01Z"))).toBe(false);
    // The Sunday before, it is four hours of EST.
    expect(isWithinWorkingHours(sunday, TO, iv("2030-03-03T06:00Z", "2030-03-03T10:00Z"))).toBe(true);
  });

  it("an opening inside the spring-forward gap moves forward by the gap", () => {
    const sunday: WeeklyHours = [{ day: 7, open: "02:30", close: "06:00" }];
    expect(isWithinWorkingHours(sunday, TO, iv("2030-03-10T07:30Z", "2030-03-10T10:00Z"))).toBe(true);
    expect(isWithinWorkingHours(sunday, TO, iv("2030-03-10T07:29Z", "2030-03-10T08:00Z"))).toBe(false);
  });

  it("fall back (Sunday 3 November 2030): 01:00–05:00 lasts five real hours", () => {
    const sunday: WeeklyHours = [{ day: 7, open: "01:00", close: "05:00" }];
    expect(isWithinWorkingHours(sunday, TO, iv("2030-11-03T05:00Z", "2030-11-03T10:00Z"))).toBe(true);
    expect(isWithinWorkingHours(sunday, TO, iv("2030-11-03T04:59Z", "2030-11-03T06:00Z"))).toBe(false);
  });

  it("a close before the open continues past midnight (Fri 22:00–02:00)", () => {
    const lateFriday: WeeklyHours = [{ day: 5, open: "22:00", close: "02:00" }];
    // Saturday 01:00–02:00 local is Friday's period.
    expect(isWithinWorkingHours(lateFriday, TO, iv("2030-01-12T06:00Z", "2030-01-12T07:00Z"))).toBe(true);
    expect(isWithinWorkingHours(lateFriday, TO, iv("2030-01-12T03:00Z", "2030-01-12T07:00Z"))).toBe(true);
    expect(isWithinWorkingHours(lateFriday, TO, iv("2030-01-12T06:30Z", "2030-01-12T07:30Z"))).toBe(false);
    // Thursday night is closed.
    expect(isWithinWorkingHours(lateFriday, TO, iv("2030-01-11T04:00Z", "2030-01-11T05:00Z"))).toBe(false);
  });

  it("an overnight period across spring forward is as long as the wall clock says", () => {
    const saturdayNight: WeeklyHours = [{ day: 6, open: "22:00", close: "04:00" }];
    expect(isWithinWorkingHours(saturdayNight, TO, iv("2030-03-10T03:00Z", "2030-03-10T08:00Z"))).toBe(true);
    expect(isWithinWorkingHours(saturdayNight, TO, iv("2030-03-10T03:00Z", "2030-03-10T09:00Z"))).toBe(false);
  });

  it("touching periods join; a lunch break does not", () => {
    const split: WeeklyHours = [
      { day: 1, open: "09:00", close: "12:00" },
      { day: 1, open: "12:00", close: "13:00" },
      { day: 1, open: "14:00", close: "17:00" },
    ];
    expect(isWithinWorkingHours(split, TO, iv("2030-01-07T16:00Z", "2030-01-07T18:00Z"))).toBe(true);
    expect(isWithinWorkingHours(split, TO, iv("2030-01-07T17:30Z", "2030-01-07T19:30Z"))).toBe(false);
  });

  it("24:00 closes at midnight and joins a period opening at 00:00 the next day", () => {
    const evening: WeeklyHours = [
      { day: 1, open: "18:00", close: "24:00" },
      { day: 2, open: "00:00", close: "02:00" },
    ];
    expect(isWithinWorkingHours(evening, TO, iv("2030-01-08T04:00Z", "2030-01-08T06:00Z"))).toBe(true);
    expect(isWithinWorkingHours(evening, TO, iv("2030-01-08T04:00Z", "2030-01-08T07:30Z"))).toBe(false);
  });

  it("open = close is a full day running into the next", () => {
    const allDay: WeeklyHours = [{ day: 1, open: "06:00", close: "06:00" }];
    expect(isWithinWorkingHours(allDay, TO, iv("2030-01-07T11:00Z", "2030-01-08T11:00Z"))).toBe(true);
    expect(isWithinWorkingHours(allDay, TO, iv("2030-01-07T11:00Z", "2030-01-08T11:01Z"))).toBe(false);
  });

  it("is false for an empty interval, an unknown zone, or malformed periods", () => {
    expect(isWithinWorkingHours(nineToFive, TO, iv("2030-01-07T15:00Z", "2030-01-07T15:00Z"))).toBe(false);
    expect(
      isWithinWorkingHours(nineToFive, "Mars/Olympus", iv("2030-01-07T15:00Z", "2030-01-07T16:00Z")),
    ).toBe(false);
    const bad = [{ day: 1, open: "9:00", close: "17:00" }] as unknown as WeeklyHours;
    expect(isWithinWorkingHours(bad, TO, iv("2030-01-07T15:00Z", "2030-01-07T16:00Z"))).toBe(false);
  });

  it("agrees with a minute-by-minute check in UTC (property)", () => {
    const period = fc.record({
      day: fc.constantFrom<1 | 2 | 3 | 4 | 5 | 6 | 7>(1, 2, 3, 4, 5, 6, 7),
      open: fc.integer({ min: 0, max: 23 * 4 + 3 }).map((q) => q * 15),
      close: fc.integer({ min: 0, max: 24 * 4 }).map((q) => q * 15),
    });
    const hhmm = (m: number) =>
      `${String(Math.floor(m / 60)).padStart(2, "0")}:${String(m % 60).padStart(2, "0")}`;
    const MONDAY = z("2030-01-07T00:00Z");
    fc.assert(
      fc.property(
        fc.array(period, { maxLength: 5 }),
        fc.integer({ min: 0, max: 7 * 96 }),
        fc.integer({ min: 1, max: 40 }),
        (periods, startQ, lenQ) => {
          const hours = periods.map((p) => ({ day: p.day, open: hhmm(p.open), close: hhmm(p.close) }));
          // Minute of the week (Monday 00:00 = 0) → working?
          const working = (minuteOfWeek: number) =>
            periods.some((p) => {
              const open = (p.day - 1) * 1440 + p.open;
              const close = (p.day - 1) * 1440 + (p.close <= p.open ? p.close + 1440 : p.close);
              const m = ((minuteOfWeek % 10080) + 10080) % 10080;
              return (m >= open && m < close) || (m + 10080 >= open && m + 10080 < close);
            });
          const start = startQ * 15;
          const end = start + lenQ * 15;
          let brute = true;
          for (let m = start; m < end && brute; m++) brute = working(m);
          const interval = { start: MONDAY + start * 60_000, end: MONDAY + end * 60_000 };
          expect(isWithinWorkingHours(hours, "UTC", interval)).toBe(brute);
        },
      ),
    );
  });
});

describe("workingStretchEnd (§4.2 until_close)", () => {
  it("is the close of the stretch that contains the instant", () => {
    const hours = weekdays("09:00", "17:00");
    expect(workingStretchEnd(hours, TO, z("2030-01-07T15:00Z"))).toBe(z("2030-01-07T22:00Z"));
    expect(workingStretchEnd(hours, TO, z("2030-01-07T22:00Z"))).toBeUndefined();
    expect(workingStretchEnd([{ day: 5, open: "22:00", close: "02:00" }], TO, z("2030-01-12T06:00Z"))).toBe(
      z("2030-01-12T07:00Z"),
    );
  });

  it("cuts a stretch that never closes at a week", () => {
    const always = ([1, 2, 3, 4, 5, 6, 7] as const).map((day) => ({ day, open: "00:00", close: "24:00" }));
    const at = z("2030-01-07T15:00Z");
    expect(workingStretchEnd(always, TO, at)).toBe(at + 7 * 86_400_000);
  });
});

describe("parseWorkingHours", () => {
  it("accepts valid periods", () => {
    expect(parseWorkingHours([{ day: 7, open: "00:00", close: "24:00" }])).toEqual({
      ok: true,
      value: [{ day: 7, open: "00:00", close: "24:00" }],
    });
  });

  it.each([
    ["not a list", {}, "/hours"],
    ["not an object", [1], "/hours/0"],
    ["day 0", [{ day: 0, open: "09:00", close: "17:00" }], "/hours/0/day"],
    ["day 8", [{ day: 8, open: "09:00", close: "17:00" }], "/hours/0/day"],
    ["open 24:00", [{ day: 1, open: "24:00", close: "17:00" }], "/hours/0/open"],
    ["open without a leading zero", [{ day: 1, open: "9:00", close: "17:00" }], "/hours/0/open"],
    ["close 24:30", [{ day: 1, open: "09:00", close: "24:30" }], "/hours/0/close"],
    ["close missing", [{ day: 1, open: "09:00" }], "/hours/0/close"],
  ])("refuses %s naming the field", (_name, value, field) => {
    const r = parseWorkingHours(value, "/hours");
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.field).toBe(field);
  });
});
