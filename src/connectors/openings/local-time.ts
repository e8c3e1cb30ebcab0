/** Openings' local dates ("YYYY-MM-DD") and times ("HH:MM") in the business's zone, and back. */
import type { LocalDate } from "../../protocol/time/calendar.js";
import { instantToWallClock, wallClockToInstant } from "../../protocol/time/index.js";

export const isoDate = (d: LocalDate): string =>
  `${String(d.year).padStart(4, "0")}-${String(d.month).padStart(2, "0")}-${String(d.day).padStart(2, "0")}`;

export function instantOf(date: string, time: string, tz: string): number | undefined {
  const [y, m, d] = date.split("-").map(Number);
  const [hh, mm] = time.split(":").map(Number);
  const r = wallClockToInstant(
    {
      year: y ?? NaN,
      month: m ?? NaN,
      day: d ?? NaN,
      hour: hh ?? NaN,
      minute: mm ?? NaN,
      second: 0,
      millisecond: 0,
    },
    tz,
  );
  return r.ok ? r.value : undefined;
}

export const localDay = (ms: number, tz: string): LocalDate => {
  const w = instantToWallClock(ms, tz);
  return { year: w.year, month: w.month, day: w.day };
};

export const localTime = (ms: number, tz: string): string => {
  const w = instantToWallClock(ms, tz);
  return `${String(w.hour).padStart(2, "0")}:${String(w.minute).padStart(2, "0")}`;
};
