/**
 * The two time shapes on the wire (OSBP "Time Discipline", SchCP §2.1 "Formats"):
 *
 * - An instant: an RFC 3339 date-time that MUST carry Z or ±hh:mm. Strict on purpose, the
 *   same everywhere: upper-case T and Z only (RFC 3339 §5.6 allows t/z, but JSON Schema
 *   validators disagree on them, so we refuse rather than differ), ECMA-262 anchoring (nothing,
 *   not even "\n", after the offset), a real calendar date (Feb 30 refused), hour 00-23,
 *   minute 00-59 and second 00-59. Leap seconds (second 60) are refused: no clock or platform
 *   here can represent one, and RFC 3339 §5.7 makes them depend on a table we do not keep.
 *   Any number of fraction digits is accepted; the instant keeps millisecond precision
 *   (truncated, never rounded up into the next second). "-00:00" is read as offset zero.
 * - A merchant-local wall-clock: no offset at all ("2026-05-05T13:00:00", seconds optional,
 *   up to 3 fraction digits). One carrying Z or an offset is refused with offset_not_allowed,
 *   which OSBP maps to invalid_mandate.
 */
import { err, fieldError, ok, type Result } from "../result.js";
import { isValidDate, type LocalDate } from "./calendar.js";
import type { TimeError, TimeErrorCode } from "./errors.js";

export interface Instant {
  readonly epochMs: number;
  readonly offsetMinutes: number;
  readonly text: string;
}

export interface WallClock {
  readonly year: number;
  readonly month: number;
  readonly day: number;
  readonly hour: number;
  readonly minute: number;
  readonly second: number;
  readonly millisecond: number;
}

export interface LocalTime {
  readonly hour: number;
  readonly minute: number;
  readonly second: number;
}

const INSTANT =
  /^([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2}):([0-9]{2})(?:\.([0-9]+))?(Z|([+-])([0-9]{2}):([0-9]{2}))$/;
const NO_OFFSET = /^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}(?::[0-9]{2}(?:\.[0-9]+)?)?$/;
const WALL = /^([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2})(?::([0-9]{2})(?:\.([0-9]{1,3}))?)?$/;
const DATE = /^([0-9]{4})-([0-9]{2})-([0-9]{2})$/;
const TIME = /^([0-9]{2}):([0-9]{2})(?::([0-9]{2}))?$/;
// Anything that ends like a zone designator: Z, z, ±hh, ±hhmm, ±hh:mm.
const ZONE_SUFFIX = /(?:[Zz]|[+-][0-9]{2}(?::?[0-9]{2})?)$/;
// 400 Gregorian years are exactly 146 097 days: shifting by them keeps Date.UTC off its
// "years 0-99 mean 1900-1999" rule without changing the result.
const FOUR_CENTURIES_MS = 146_097 * 86_400_000;

const num = (s: string | undefined): number => (s === undefined ? 0 : Number(s));
const fail = (code: TimeErrorCode, field: string, message: string): Result<never, TimeError> =>
  err(fieldError(code, field, message));

function timeOk(hour: number, minute: number, second: number): boolean {
  return hour <= 23 && minute <= 59 && second <= 59;
}

export function parseInstant(value: unknown, field: string): Result<Instant, TimeError> {
  if (typeof value !== "string") return fail("invalid_type", field, "an instant is an RFC 3339 string");
  const m = INSTANT.exec(value);
  if (m === null) {
    return NO_OFFSET.test(value)
      ? fail("missing_offset", field, "an instant must carry Z or an explicit ±hh:mm offset")
      : fail("invalid_instant", field, `${JSON.stringify(value)} is not an RFC 3339 date-time`);
  }
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(num) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  if (!isValidDate({ year, month, day })) return fail("invalid_instant", field, "not a calendar date");
  if (second === 60) return fail("invalid_instant", field, "leap seconds are not accepted");
  if (!timeOk(hour, minute, second)) return fail("invalid_instant", field, "not a time of day");
  const offsetHours = num(m[10]);
  const offsetMins = num(m[11]);
  if (offsetHours > 23 || offsetMins > 59) return fail("invalid_instant", field, "not a UTC offset");
  const offsetMinutes = (m[9] === "-" ? -1 : 1) * (offsetHours * 60 + offsetMins) + 0;
  const millisecond = num((m[7] ?? "").slice(0, 3).padEnd(3, "0"));
  const local = Date.UTC(year + 400, month - 1, day, hour, minute, second, millisecond) - FOUR_CENTURIES_MS;
  return ok({ epochMs: local - offsetMinutes * 60_000, offsetMinutes, text: value });
}

export function parseWallClock(value: unknown, field: string): Result<WallClock, TimeError> {
  if (typeof value !== "string") return fail("invalid_type", field, "a wall-clock time is a string");
  const m = WALL.exec(value);
  if (m === null) {
    if (ZONE_SUFFIX.test(value) && NO_OFFSET.test(value.replace(ZONE_SUFFIX, ""))) {
      return fail("offset_not_allowed", field, "a merchant-local wall-clock time carries no Z or offset");
    }
    return fail(
      "invalid_wall_clock",
      field,
      `${JSON.stringify(value)} is not a wall-clock "YYYY-MM-DDTHH:MM[:SS]"`,
    );
  }
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(num) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const w: WallClock = {
    year,
    month,
    day,
    hour,
    minute,
    second,
    millisecond: num((m[7] ?? "").padEnd(3, "0")),
  };
  return isValidWallClock(w)
    ? ok(w)
    : fail("invalid_wall_clock", field, "not a calendar date and time of day");
}

export function isValidWallClock(w: WallClock): boolean {
  const ints = [w.hour, w.minute, w.second, w.millisecond].every((n) => Number.isInteger(n) && n >= 0);
  return ints && isValidDate(w) && timeOk(w.hour, w.minute, w.second) && w.millisecond <= 999;
}

const pad = (n: number, width = 2): string => String(n).padStart(width, "0");

/** "YYYY-MM-DDTHH:MM:SS", plus ".fff" only when the milliseconds are not zero. Throws TypeError on an invalid value. */
export function formatWallClock(w: WallClock): string {
  if (!isValidWallClock(w)) throw new TypeError(`not a wall-clock time: ${JSON.stringify(w)}`);
  const ms = w.millisecond === 0 ? "" : `.${pad(w.millisecond, 3)}`;
  return `${pad(w.year, 4)}-${pad(w.month)}-${pad(w.day)}T${pad(w.hour)}:${pad(w.minute)}:${pad(w.second)}${ms}`;
}

/** A merchant-local calendar date "YYYY-MM-DD" (OSBP availability.find and booking.create date). */
export function parseLocalDate(value: unknown, field: string): Result<LocalDate, TimeError> {
  if (typeof value !== "string") return fail("invalid_type", field, "a date is a string");
  const m = DATE.exec(value);
  if (m === null) {
    return ZONE_SUFFIX.test(value) && DATE.test(value.replace(ZONE_SUFFIX, ""))
      ? fail("offset_not_allowed", field, "a merchant-local date carries no Z or offset")
      : fail("invalid_date", field, `${JSON.stringify(value)} is not a date "YYYY-MM-DD"`);
  }
  const date = { year: num(m[1]), month: num(m[2]), day: num(m[3]) };
  return isValidDate(date) ? ok(date) : fail("invalid_date", field, "not a calendar date");
}

/** A merchant-local time of day "HH:MM" or "HH:MM:SS" (OSBP booking.create time). */
export function parseLocalTime(value: unknown, field: string): Result<LocalTime, TimeError> {
  if (typeof value !== "string") return fail("invalid_type", field, "a time is a string");
  const m = TIME.exec(value);
  if (m === null) {
    return ZONE_SUFFIX.test(value) && TIME.test(value.replace(ZONE_SUFFIX, ""))
      ? fail("offset_not_allowed", field, "a merchant-local time carries no Z or offset")
      : fail("invalid_time", field, `${JSON.stringify(value)} is not a time "HH:MM[:SS]"`);
  }
  const time = { hour: num(m[1]), minute: num(m[2]), second: num(m[3]) };
  return timeOk(time.hour, time.minute, time.second)
    ? ok(time)
    : fail("invalid_time", field, "not a time of day");
}

/** Orders two wall-clock values field by field (both in the same zone): -1, 0 or 1. */
export function compareWallClock(a: WallClock, b: WallClock): -1 | 0 | 1 {
  const keys = ["year", "month", "day", "hour", "minute", "second", "millisecond"] as const;
  for (const k of keys) {
    if (a[k] !== b[k]) return a[k] < b[k] ? -1 : 1;
  }
  return 0;
}
