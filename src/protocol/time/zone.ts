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

export type Disambiguation = "compatible" | "earlier" | "later" | "reject";

/** Answers for zone names seen so far; bounded, since names can come from requests. */
const zoneValidity = new Map<string, boolean>();
const MAX_ZONES = 1_000;

export function isValidTimeZone(tz: string): boolean {
  if (typeof tz !== "string") return false;
  const known = zoneValidity.get(tz);
  if (known !== undefined) return known;
  let valid: boolean;
  if (/^[+-]/.test(tz)) valid = false;
  else {
    try {
      valid = new Temporal.ZonedDateTime(0n, tz).timeZoneId === tz;
    } catch {
      valid = false;
    }
  }
  if (zoneValidity.size < MAX_ZONES) zoneValidity.set(tz, valid);
  return valid;
}

// ---- the fast path ----------------------------------------------------------------------
// A Temporal ZonedDateTime per conversion costs tenths of a millisecond under the polyfill, and
// the gateway converts for every candidate start of every query. Offsets change only at the
// zone's transitions, so per zone and UTC day we ask Temporal once whether the day holds a
// transition (getTimeZoneTransition, exact) and, when it does not, convert by arithmetic.
// Days with a transition, and instants outside years 1000-9999, still go through Temporal.

const DAY_MS = 86_400_000;
const MIN_FAST_MS = Date.UTC(1000, 0, 1);
const MAX_FAST_MS = Date.UTC(9999, 11, 31);
const MAX_DAYS_PER_ZONE = 50_000;
/** zone → UTC day → the offset (ms) in force all day, or NaN when the day holds a transition. */
const dayOffsets = new Map<string, Map<number, number>>();

function exactOffsetMs(epochMs: number, timeZone: string): number {
  return zoned(epochMs, timeZone).offsetNanoseconds / 1e6;
}

function steadyOffsetOfDay(timeZone: string, day: number): number {
  let days = dayOffsets.get(timeZone);
  if (days === undefined) dayOffsets.set(timeZone, (days = new Map<number, number>()));
  const known = days.get(day);
  if (known !== undefined) return known;
  const start = zoned(day * DAY_MS, timeZone);
  const next = start.getTimeZoneTransition("next");
  const steady = next === null || next.epochMilliseconds >= (day + 1) * DAY_MS;
  const offset = steady ? start.offsetNanoseconds / 1e6 : Number.NaN;
  if (days.size >= MAX_DAYS_PER_ZONE) days.clear();
  days.set(day, offset);
  return offset;
}

/** The zone's offset at an instant in ms (exact), or NaN outside the fast range. */
function offsetMsAt(epochMs: number, timeZone: string): number {
  if (epochMs < MIN_FAST_MS || epochMs > MAX_FAST_MS) return exactOffsetMs(epochMs, timeZone);
  const steady = steadyOffsetOfDay(timeZone, Math.floor(epochMs / DAY_MS));
  return Number.isNaN(steady) ? exactOffsetMs(epochMs, timeZone) : steady;
}

function checkInstant(epochMs: number, timeZone: string): void {
  if (!isValidTimeZone(timeZone)) throw new TypeError(`not an IANA time zone: ${JSON.stringify(timeZone)}`);
  if (!Number.isSafeInteger(epochMs))
    throw new TypeError(`epoch milliseconds must be an integer, got ${epochMs}`);
}

/** Wall-clock fields of a UTC-shifted instant (the instant plus its zone offset). */
function wallOfShifted(shifted: number): WallClock {
  const d = new Date(shifted);
  return {
    year: d.getUTCFullYear(),
    month: d.getUTCMonth() + 1,
    day: d.getUTCDate(),
    hour: d.getUTCHours(),
    minute: d.getUTCMinutes(),
    second: d.getUTCSeconds(),
    millisecond: d.getUTCMilliseconds(),
  };
}

/**
 * The instant of a wall-clock when no transition is within a day of it (then there is exactly
 * one), else undefined. Candidates lie within 14 hours of the wall-clock read as UTC.
 */
function steadyInstant(w: WallClock, timeZone: string): number | undefined {
  if (w.year < 1001 || w.year > 9998) return undefined;
  const local = Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second, w.millisecond);
  const day = Math.floor(local / DAY_MS);
  const offset = steadyOffsetOfDay(timeZone, day);
  if (Number.isNaN(offset)) return undefined;
  if (steadyOffsetOfDay(timeZone, day - 1) !== offset || steadyOffsetOfDay(timeZone, day + 1) !== offset)
    return undefined;
  return local - offset;
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
  const steady = steadyInstant(w, timeZone);
  if (steady !== undefined) return ok(steady);
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
  checkInstant(epochMs, timeZone);
  const offset = offsetMsAt(epochMs, timeZone);
  return Number.isInteger(offset) && epochMs >= MIN_FAST_MS && epochMs <= MAX_FAST_MS
    ? wallOfShifted(epochMs + offset)
    : wallOf(zoned(epochMs, timeZone));
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
  checkInstant(epochMs, timeZone);
  return offsetMsAt(epochMs, timeZone) / 60_000;
}

/**
 * RFC 3339 text of an instant: with the zone's offset at that instant
 * ("2026-10-15T13:00:00-04:00"), or in UTC with Z when no zone is given. Whole seconds unless
 * the milliseconds are not zero. An offset that is not whole minutes (historic local mean
 * time) cannot be written in RFC 3339, so such an instant is written in UTC instead.
 * Throws TypeError for a bad zone, a non-integer, or a year outside 0000-9999.
 */
export function formatInstant(epochMs: number, timeZone?: string): string {
  const zone = timeZone ?? "UTC";
  checkInstant(epochMs, zone);
  const offset = offsetMsAt(epochMs, zone) / 60_000;
  if (!Number.isInteger(offset)) return formatInstant(epochMs);
  const w = instantToWallClock(epochMs, zone);
  if (w.year > 9999 || w.year < 0) throw new TypeError(`year ${w.year} cannot be written in RFC 3339`);
  if (timeZone === undefined) return `${formatWallClock(w)}Z`;
  const abs = Math.abs(offset);
  const hhmm = `${String(Math.floor(abs / 60)).padStart(2, "0")}:${String(abs % 60).padStart(2, "0")}`;
  return `${formatWallClock(w)}${offset < 0 ? "-" : "+"}${hhmm}`;
}
