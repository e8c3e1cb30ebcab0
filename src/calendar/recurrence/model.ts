/**
 * The one model the expansion engine reads (expand.ts): an event component with its times
 * resolved to a frame (a date, or a wall clock in a zone) but its recurrence data still as the
 * calendar wrote it. expandIcs (from-ics.ts) and expandEvents (from-raw.ts) both build it, so
 * the two cannot disagree about what a calendar means.
 */
import type { Zone } from "./zones.js";

/** STATUS as written (uppercased), null when the component has none. */
export type EventStatus = "TENTATIVE" | "CONFIRMED" | "CANCELLED" | null;

/**
 * A DATE (floating ms of its midnight, read in the floating zone) or a DATE-TIME (floating
 * ms of its wall clock in `zone`: the TZID's zone, UTC for "…Z", the floating zone otherwise).
 */
export type TimeValue =
  | { readonly date: true; readonly local: number }
  | { readonly date: false; readonly local: number; readonly zone: Zone };

/** An RFC 5545 duration: nominal days (weeks are 7) and exact milliseconds (§3.3.6). */
export interface NominalDuration {
  readonly days: number;
  readonly ms: number;
}

export interface RDateValue {
  readonly start: TimeValue;
  /** RDATE;VALUE=PERIOD: its own end or duration. */
  readonly end?: TimeValue;
  readonly duration?: NominalDuration;
}

export interface Component {
  readonly uid: string;
  readonly eventId: string;
  readonly start: TimeValue;
  readonly end?: TimeValue;
  readonly duration?: NominalDuration;
  readonly rrules: readonly string[];
  readonly rdates: readonly RDateValue[];
  readonly exdates: readonly TimeValue[];
  readonly recurrenceId?: TimeValue;
  readonly thisAndFuture: boolean;
  readonly status: EventStatus;
  readonly transparent: boolean;
  /** SEQUENCE (RFC 5545 §3.8.7.4), when written: a higher one supersedes a copy with a lower one. */
  readonly sequence?: number;
}

export const DAY = 86_400_000;

/** The parts of a date or date-time written in basic (iCalendar) or extended (RFC 3339) form. */
export interface ParsedTime {
  readonly date: boolean;
  /** Floating ms of the wall clock as written. */
  readonly local: number;
  /** "Z" (0) or an explicit offset in minutes; undefined for floating or zoned text. */
  readonly offsetMinutes?: number;
}

const TIME =
  /^(\d{4})-?(\d{2})-?(\d{2})(?:T(\d{2}):?(\d{2})(?::?(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:?\d{2})?)?$/i;

/** Reads "20200101", "2020-01-01", "20200101T100000Z", "2020-01-01T10:00:00+01:00"…; undefined if not one. */
export function parseTime(text: string): ParsedTime | undefined {
  const m = TIME.exec(text.trim());
  if (m === null) return undefined;
  const [y, mo, d, h, mi, s] = m.slice(1, 7).map((x) => Number(x ?? 0)) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const ms = Number((m[7] ?? "").slice(0, 3).padEnd(3, "0"));
  if (mo < 1 || mo > 12 || d < 1 || h > 23 || mi > 59 || s > 60) return undefined;
  const local = Date.UTC(y, mo - 1, d, h, mi, Math.min(s, 59), ms);
  if (new Date(local).getUTCDate() !== d) return undefined;
  const zone = m[8];
  if (m[4] === undefined) return { date: true, local };
  if (zone === undefined) return { date: false, local };
  if (zone.toUpperCase() === "Z") return { date: false, local, offsetMinutes: 0 };
  const sign = zone.startsWith("-") ? -1 : 1;
  const digits = zone.slice(1).replace(":", "");
  return {
    date: false,
    local,
    offsetMinutes: sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2))),
  };
}

const DURATION = /^([+-])?P(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?)?$/i;

/**
 * The longest duration read, in days: about 10,000 years. Longer ones are valid RFC 5545
 * (§3.3.6 sets no limit) but end past any instant RFC 3339 can write, so they cannot be told.
 */
const MAX_DURATION_DAYS = 3_660_000;

/**
 * Reads an RFC 5545 DURATION ("PT1H30M", "P1D", "-PT15M", "P2W"); undefined if not one, or
 * longer than MAX_DURATION_DAYS.
 */
export function parseDuration(text: string): NominalDuration | undefined {
  const m = DURATION.exec(text.trim());
  if (m === null || /T$/i.test(text.trim()) || text.trim().replace(/^[+-]/, "").toUpperCase() === "P")
    return undefined;
  const n = (i: number): number => Number(m[i] ?? 0);
  const sign = m[1] === "-" ? -1 : 1;
  const days = n(2) * 7 + n(3);
  const seconds = (n(4) * 60 + n(5)) * 60 + n(6);
  if (days + seconds / 86_400 > MAX_DURATION_DAYS) return undefined;
  return { days: sign * days, ms: sign * seconds * 1000 };
}
