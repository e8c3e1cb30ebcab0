/**
 * A slot in words, in one zone: "Thursday 15 October 2026, 8:00–9:00 a.m. Pacific time".
 *
 * Wall-clock fields come from Temporal (temporal-polyfill) with the zone given
 * explicitly; month and weekday names are written here in English rather than taken
 * from Intl, because the order the spec uses ("Thursday 15 October 2026") is not any
 * locale's default and a fixed table cannot drift with ICU versions.
 */
import type { Temporal } from "temporal-polyfill";
import { utcOffsetLabel, zoneWords } from "./zone-name.js";

const WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"] as const;
const MONTHS = [
  "January",
  "February",
  "March",
  "April",
  "May",
  "June",
  "July",
  "August",
  "September",
  "October",
  "November",
  "December",
] as const;

/** "Thursday 15 October 2026". */
function dateWords(z: Temporal.ZonedDateTime): string {
  return `${WEEKDAYS[z.dayOfWeek - 1] ?? ""} ${z.day} ${MONTHS[z.month - 1] ?? ""} ${z.year}`;
}

/** "8:00", "12:15", "9:05:30" (seconds only when there are any). */
function clockDigits(z: Temporal.ZonedDateTime): string {
  const h12 = z.hour % 12 === 0 ? 12 : z.hour % 12;
  const mm = String(z.minute).padStart(2, "0");
  const ss = z.second === 0 ? "" : `:${String(z.second).padStart(2, "0")}`;
  return `${h12}:${mm}${ss}`;
}

/** Noon is "12:00 p.m." and midnight "12:00 a.m.", as US usage has it. */
function meridiem(z: Temporal.ZonedDateTime): "a.m." | "p.m." {
  return z.hour < 12 ? "a.m." : "p.m.";
}

/** "8:00 a.m.". */
function timeWords(z: Temporal.ZonedDateTime): string {
  return `${clockDigits(z)} ${meridiem(z)}`;
}

/** "Tuesday 13 October 2026, 9:15 p.m. Eastern time": one instant, for deadlines. */
export function instantWords(instant: Temporal.Instant, zone: string): string {
  const z = instant.toZonedDateTimeISO(zone);
  return `${dateWords(z)}, ${timeWords(z)} ${zoneWords(instant, zone)}`;
}

/**
 * The slot: a range, or "from" a start for an open-ended booking (SchCP §4.2).
 *
 * - same day, same offset: "8:00–9:00 a.m." (shared meridiem once) or
 *   "11:30 a.m.–12:15 p.m.", then the zone once;
 * - the end on another day names that day: "…, 11:00 p.m. – Friday 16 October 2026,
 *   1:00 a.m. Pacific time";
 * - a slot across a daylight-saving change (the offsets differ) gives each end its
 *   own UTC offset, since "1:30–1:30 a.m." would hide an hour.
 */
export function slotWords(start: Temporal.Instant, end: Temporal.Instant | null, zone: string): string {
  const s = start.toZonedDateTimeISO(zone);
  const label = zoneWords(start, zone);
  if (end === null) return `${dateWords(s)} from ${timeWords(s)} ${label}, open-ended`;

  const e = end.toZonedDateTimeISO(zone);
  const sameDay = s.toPlainDate().equals(e.toPlainDate());
  const sameOffset = s.offsetNanoseconds === e.offsetNanoseconds;
  if (sameDay && sameOffset) {
    const range =
      meridiem(s) === meridiem(e)
        ? `${clockDigits(s)}–${clockDigits(e)} ${meridiem(e)}`
        : `${timeWords(s)}–${timeWords(e)}`;
    return `${dateWords(s)}, ${range} ${label}`;
  }
  const endDay = sameDay ? "" : `${dateWords(e)}, `;
  if (sameOffset) return `${dateWords(s)}, ${timeWords(s)} – ${endDay}${timeWords(e)} ${label}`;
  return (
    `${dateWords(s)}, ${timeWords(s)} ${withOffset(label, s)} – ` +
    `${endDay}${timeWords(e)} ${withOffset(zoneWords(end, zone), e)}`
  );
}

/** "Pacific time (UTC−07:00)"; an offset label already says it all. */
function withOffset(label: string, z: Temporal.ZonedDateTime): string {
  const offset = utcOffsetLabel(z.offsetNanoseconds);
  return label === offset ? label : `${label} (${offset})`;
}
