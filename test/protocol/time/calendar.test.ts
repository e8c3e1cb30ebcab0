import { describe, expect, it } from "vitest";
import { addDays, daysInMonth, isLeapYear, isoWeekday } from "../../../src/protocol/time/calendar.js";

describe("isoWeekday (OSBP Time Discipline: 1 = Monday … 7 = Sunday, not getDay)", () => {
  it.each([
    [2026, 5, 4, 1], // Monday
    [2026, 5, 5, 2], // the OSBP example day, a Tuesday
    [2026, 10, 15, 4], // the SchCP example day, a Thursday
    [2026, 5, 9, 6],
    [2026, 5, 10, 7], // Sunday is 7, where getDay says 0
    [1970, 1, 1, 4],
    [2000, 2, 29, 2],
    [2024, 12, 31, 2],
    [1, 1, 1, 1],
  ])("%i-%i-%i is %i", (year, month, day, weekday) => {
    expect(isoWeekday({ year, month, day })).toBe(weekday);
  });

  it("throws TypeError for an impossible date", () => {
    expect(() => isoWeekday({ year: 2026, month: 2, day: 30 })).toThrow(TypeError);
  });
});

describe("addDays", () => {
  it.each([
    [{ year: 2026, month: 5, day: 5 }, 1, { year: 2026, month: 5, day: 6 }],
    [{ year: 2026, month: 12, day: 31 }, 1, { year: 2027, month: 1, day: 1 }],
    [{ year: 2024, month: 2, day: 28 }, 1, { year: 2024, month: 2, day: 29 }],
    [{ year: 2026, month: 2, day: 28 }, 1, { year: 2026, month: 3, day: 1 }],
    [{ year: 2026, month: 3, day: 1 }, -1, { year: 2026, month: 2, day: 28 }],
    [{ year: 2026, month: 3, day: 8 }, 0, { year: 2026, month: 3, day: 8 }],
    [{ year: 2026, month: 1, day: 1 }, 365, { year: 2027, month: 1, day: 1 }],
  ])("%j + %i days", (date, n, expected) => {
    expect(addDays(date, n)).toEqual(expected);
  });

  it("throws TypeError for a fractional day count", () => {
    expect(() => addDays({ year: 2026, month: 1, day: 1 }, 0.5)).toThrow(TypeError);
  });
});

describe("Gregorian rules", () => {
  it.each([
    [2024, true],
    [2026, false],
    [2000, true],
    [1900, false],
  ])("%i leap: %s", (year, leap) => {
    expect(isLeapYear(year)).toBe(leap);
    expect(daysInMonth(year, 2)).toBe(leap ? 29 : 28);
  });
});
