/**
 * Proleptic Gregorian calendar dates (ISO 8601), the calendar of every date on the wire.
 * Weekday and day arithmetic count days from 1970-01-01 with the civil-from-days formulas
 * (integer arithmetic, exact for every year 0000-9999): these run for every start of every
 * availability query, where a Temporal object per call was the gateway's largest cost.
 * The tests check them against Temporal.
 */

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

function checked(d: LocalDate): LocalDate {
  if (!isValidDate(d)) throw new TypeError(`not a calendar date: ${JSON.stringify(d)}`);
  return d;
}

/** Days since 1970-01-01 (negative before it). Throws TypeError for an invalid date. */
export function epochDay(date: LocalDate): number {
  const { year, month, day } = checked(date);
  // Years start in March, so the leap day is the last day of the counted year.
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const mp = (month + 9) % 12;
  const doy = Math.floor((153 * mp + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146_097 + doe - 719_468;
}

/** The date `days` after 1970-01-01. */
export function dateOfEpochDay(days: number): LocalDate {
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor(
    (doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365,
  );
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  return { year: yoe + era * 400 + (month <= 2 ? 1 : 0), month, day };
}

/**
 * ISO 8601 weekday, 1 = Monday … 7 = Sunday (OSBP "Time Discipline": schedule_hours days),
 * never JavaScript's getDay (0 = Sunday). Throws TypeError for an invalid date.
 */
export function isoWeekday(date: LocalDate): IsoWeekday {
  // 1970-01-01 was a Thursday (4).
  return (((((epochDay(date) + 3) % 7) + 7) % 7) + 1) as IsoWeekday;
}

/** The calendar date n days later (or earlier, n < 0). Throws TypeError for bad input. */
export function addDays(date: LocalDate, n: number): LocalDate {
  if (!Number.isSafeInteger(n)) throw new TypeError(`days must be an integer, got ${n}`);
  const next = dateOfEpochDay(epochDay(date) + n);
  // Temporal's range ends with the years RFC 3339 can write; so does ours.
  if (!isValidDate(next)) throw new RangeError(`date out of range: ${JSON.stringify(next)}`);
  return next;
}
