/**
 * Format checks SchCP asserts (§2.1: "Validators MUST assert the schema's format keywords").
 *
 * date-time is not ajv-formats' version, which is looser than §2.1 allows (it takes "+0100"
 * and "+01" offsets, a space or lower-case "t" as separator and a lower-case "z"). It is the
 * time module's strict RFC 3339 instant, so the schemas and the code that compares dates read
 * the same strings the same way: YYYY-MM-DDTHH:MM:SS[.fraction](Z|±hh:mm), real calendar
 * dates, no leap seconds. Time zones are IANA names the time module can compute with.
 */
import { isValidDate, isValidTimeZone, parseInstant } from "../../time/index.js";

/** RFC 8984 LocalDateTime: no offset, fractional seconds without trailing zeros. */
const LOCAL_DATE_TIME = /^([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2}):([0-9]{2})(\.[0-9]*[1-9])?$/;

function checkDateAndTime(m: RegExpExecArray): boolean {
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  return isValidDate({ year, month, day }) && hour <= 23 && minute <= 59 && second <= 59;
}

export function isDateTime(value: string): boolean {
  return parseInstant(value, "").ok;
}

export function isLocalDateTime(value: string): boolean {
  const m = LOCAL_DATE_TIME.exec(value);
  return m !== null && checkDateAndTime(m);
}

export function isTimeZone(value: string): boolean {
  return isValidTimeZone(value);
}
