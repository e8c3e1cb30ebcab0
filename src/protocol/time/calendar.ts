/**
 * Proleptic Gregorian calendar dates (ISO 8601), the calendar of every date on the wire.
 * Weekday and day arithmetic go through Temporal; validation is the two rules below.
 */
import { Temporal } from "temporal-polyfill";

export interface LocalDate {
  readonly year: number;
  readonly month: number;
  readonly day: number;
}

export type IsoWeekday = 1 | 2 | 3 | 4 | 5 | 6 | 7;

export function isLeapYear(year: number): boolean {
  return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
}

export function daysInMonth(year: number, month: number): number {
  if (month === 2) return isLeapYear(year) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/** Year 0000-9999 (what RFC 3339 can write), month 1-12, day within the month. */
export function isValidDate(d: LocalDate): boolean {
  return (
    Number.isInteger(d.year) &&
    Number.isInteger(d.month) &&
    Number.isInteger(d.day) &&
    d.year >= 0 &&
    d.year <= 9999 &&
    d.month >= 1 &&
    d.month <= 12 &&
    d.day >= 1 &&
    d.day <= daysInMonth(d.year, d.month)
  );
}

function toPlainDate(d: LocalDate): Temporal.PlainDate {
  if (!isValidDate(d)) throw new TypeError(`not a calendar date: ${JSON.stringify(d)}`);
  return new Temporal.PlainDate(d.year, d.month, d.day);
}

/**
 * ISO 8601 weekday, 1 = Monday … 7 = Sunday (OSBP "Time Discipline": schedule_hours days),
 * never JavaScript's getDay (0 = Sunday). Throws TypeError for an invalid date.
 */
export function isoWeekday(date: LocalDate): IsoWeekday {
  return toPlainDate(date).dayOfWeek as IsoWeekday;
}

/** The calendar date n days later (or earlier, n < 0). Throws TypeError for bad input. */
export function addDays(date: LocalDate, n: number): LocalDate {
  if (!Number.isSafeInteger(n)) throw new TypeError(`days must be an integer, got ${n}`);
  const next = toPlainDate(date).add({ days: n });
  return { year: next.year, month: next.month, day: next.day };
}
