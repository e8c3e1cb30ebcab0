/**
 * Format checks SchCP asserts (§2.1: "Validators MUST assert the schema's format keywords").
 *
 * date-time is hand-written because ajv-formats' version is looser than §2.1 allows: it takes
 * "+0100" and "+01" offsets, a space or lower-case "t" as separator and a lower-case "z".
 * §2.1 wants an RFC 3339 date-time with "Z or ±hh:mm", so this accepts exactly
 * YYYY-MM-DDTHH:MM:SS[.fraction](Z|±hh:mm) with real calendar dates. Leap seconds (:60) are
 * refused: no clock the gateway uses can represent them (strict reading; the spec is silent).
 */

const DATE_TIME =
  /^([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2}):([0-9]{2})(\.[0-9]+)?(Z|[+-]([0-9]{2}):([0-9]{2}))$/;

/** RFC 8984 LocalDateTime: no offset, fractional seconds without trailing zeros. */
const LOCAL_DATE_TIME = /^([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2}):([0-9]{2})(\.[0-9]*[1-9])?$/;

/** IANA zone names (Area/Location, Etc/GMT+5, UTC); existence is checked with Intl below. */
const TIME_ZONE = /^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/;

function isRealDate(year: number, month: number, day: number): boolean {
  if (month < 1 || month > 12 || day < 1) return false;
  // Day 0 of the next month is the last day of this one; UTC avoids local DST quirks.
  return day <= new Date(Date.UTC(year, month, 0)).getUTCDate();
}

function checkDateAndTime(m: RegExpExecArray): boolean {
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  return isRealDate(year, month, day) && hour <= 23 && minute <= 59 && second <= 59;
}

export function isDateTime(value: string): boolean {
  const m = DATE_TIME.exec(value);
  if (m === null || !checkDateAndTime(m)) return false;
  if (m[8] === "Z") return true;
  return Number(m[9]) <= 23 && Number(m[10]) <= 59;
}

export function isLocalDateTime(value: string): boolean {
  const m = LOCAL_DATE_TIME.exec(value);
  return m !== null && checkDateAndTime(m);
}

const zoneCache = new Map<string, boolean>();

export function isTimeZone(value: string): boolean {
  if (!TIME_ZONE.test(value)) return false;
  const cached = zoneCache.get(value);
  if (cached !== undefined) return cached;
  let known: boolean;
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: value });
    known = true;
  } catch {
    known = false;
  }
  // Bounded so a stream of junk zone names cannot grow the cache without limit.
  if (zoneCache.size < 1000) zoneCache.set(value, known);
  return known;
}
