/**
 * Merchant-local wall-clock <-> instant in an IANA time zone (OSBP "Time Discipline"), through
 * Temporal (temporal-polyfill), which carries the time zone rules.
 *
 * Disambiguation DEFAULTS TO "compatible" (Temporal's and RFC 5545's choice), so the same
 * wall-clock always gives the same instant across the gateway:
 *   - in a DST gap (02:30 on a spring-forward day in America/Toronto, which does not exist),
 *     the time moves forward by the gap's length: 03:30 EDT;
 *   - in an overlap (01:30 on a fall-back day, which happens twice), the EARLIER instant
 *     wins: 01:30 EDT, before the clocks go back;
 *   - "earlier" and "later" pick that side in both cases, and "reject" refuses both with
 *     nonexistent_local_time or ambiguous_local_time naming the field.
 *
 * Time zones are IANA names in their exact spelling ("America/Toronto", "UTC"): offset
 * strings ("+05:00") and other spellings ("america/toronto") are not time zones here.
 */
import { Temporal } from "temporal-polyfill";
import { err, fieldError, ok, type Result } from "../result.js";
import type { TimeError } from "./errors.js";
import { formatWallClock, isValidWallClock, type WallClock } from "./rfc3339.js";

export { addDays, isoWeekday, type IsoWeekday, type LocalDate } from "./calendar.js";

export type Disambiguation = "compatible" | "earlier" | "later" | "reject";

export function isValidTimeZone(tz: string): boolean {
  if (typeof tz !== "string" || /^[+-]/.test(tz)) return false;
  try {
    return new Temporal.ZonedDateTime(0n, tz).timeZoneId === tz;
  } catch {
    return false;
  }
}

function zoned(epochMs: number, timeZone: string): Temporal.ZonedDateTime {
  if (!isValidTimeZone(timeZone)) throw new TypeError(`not an IANA time zone: ${JSON.stringify(timeZone)}`);
  if (!Number.isSafeInteger(epochMs))
    throw new TypeError(`epoch milliseconds must be an integer, got ${epochMs}`);
  return Temporal.Instant.fromEpochMilliseconds(epochMs).toZonedDateTimeISO(timeZone);
}

function plain(w: WallClock): Temporal.PlainDateTime {
  return new Temporal.PlainDateTime(w.year, w.month, w.day, w.hour, w.minute, w.second, w.millisecond);
}

/** The instant (epoch ms) of a merchant-local wall-clock in a zone; see the file comment for gaps and overlaps. */
export function wallClockToInstant(
  w: WallClock,
  timeZone: string,
  disambiguation: Disambiguation = "compatible",
  field = "",
): Result<number, TimeError> {
  if (!isValidTimeZone(timeZone)) {
    return err(
      fieldError("invalid_time_zone", field, `${JSON.stringify(timeZone)} is not an IANA time zone`),
    );
  }
  if (!isValidWallClock(w)) return err(fieldError("invalid_wall_clock", field, "not a wall-clock time"));
  const local = plain(w);
  if (disambiguation !== "reject") {
    return ok(local.toZonedDateTime(timeZone, { disambiguation }).epochMilliseconds);
  }
  const earlier = local.toZonedDateTime(timeZone, { disambiguation: "earlier" });
  const later = local.toZonedDateTime(timeZone, { disambiguation: "later" });
  if (earlier.epochMilliseconds === later.epochMilliseconds) return ok(earlier.epochMilliseconds);
  // In an overlap both candidates show the requested wall-clock; in a gap neither does.
  return earlier.toPlainDateTime().equals(local)
    ? err(fieldError("ambiguous_local_time", field, `${formatWallClock(w)} happens twice in ${timeZone}`))
    : err(fieldError("nonexistent_local_time", field, `${formatWallClock(w)} does not exist in ${timeZone}`));
}

/** The wall-clock in a zone at an instant. Throws TypeError for a bad zone or non-integer ms. */
export function instantToWallClock(epochMs: number, timeZone: string): WallClock {
  return wallOf(zoned(epochMs, timeZone));
}

function wallOf(z: Temporal.ZonedDateTime): WallClock {
  return {
    year: z.year,
    month: z.month,
    day: z.day,
    hour: z.hour,
    minute: z.minute,
    second: z.second,
    millisecond: z.millisecond,
  };
}

/**
 * The zone's UTC offset at an instant, in minutes (-240 for EDT). Historic local mean time
 * offsets are not whole minutes and come back fractional.
 */
export function offsetMinutesAt(epochMs: number, timeZone: string): number {
  return zoned(epochMs, timeZone).offsetNanoseconds / 60e9;
}

/**
 * RFC 3339 text of an instant: with the zone's offset at that instant
 * ("2026-10-15T13:00:00-04:00"), or in UTC with Z when no zone is given. Whole seconds unless
 * the milliseconds are not zero. An offset that is not whole minutes (historic local mean
 * time) cannot be written in RFC 3339, so such an instant is written in UTC instead.
 * Throws TypeError for a bad zone, a non-integer, or a year outside 0000-9999.
 */
export function formatInstant(epochMs: number, timeZone?: string): string {
  const z = zoned(epochMs, timeZone ?? "UTC");
  const offset = z.offsetNanoseconds / 60e9;
  if (!Number.isInteger(offset)) return formatInstant(epochMs);
  const w = wallOf(z);
  if (w.year > 9999 || w.year < 0) throw new TypeError(`year ${w.year} cannot be written in RFC 3339`);
  if (timeZone === undefined) return `${formatWallClock(w)}Z`;
  const abs = Math.abs(offset);
  const hhmm = `${String(Math.floor(abs / 60)).padStart(2, "0")}:${String(abs % 60).padStart(2, "0")}`;
  return `${formatWallClock(w)}${offset < 0 ? "-" : "+"}${hhmm}`;
}
