/**
 * formatInstant(epochMs, zone) (RFC 3339 with the zone's offset) for the many instants of one
 * availability answer: every slot's start and end. The protocol function builds a wall clock
 * object and validates it per call; here the zone's offset still comes from the protocol
 * (offsetMinutesAt: exact, DST included), and the text is put together from the local date,
 * written once per local day, and the time of day. Anything unusual (seconds or milliseconds,
 * an offset that is not whole minutes, a year near the ends of RFC 3339's range) is left to
 * formatInstant itself. test/booking/availability/instant-format.test.ts compares the two.
 */
import { formatInstant, offsetMinutesAt } from "../../protocol/time/index.js";

const DAY = 86_400_000;
const MINUTE = 60_000;
/** Instants well inside years 1001-9998, whose local date is always four-digit. */
const LOW = Date.UTC(1001, 0, 1);
const HIGH = Date.UTC(9998, 0, 1);
const TWO = Array.from({ length: 60 }, (_, i) => String(i).padStart(2, "0"));

export function instantFormatter(zone: string): (epochMs: number) => string {
  const dates = new Map<number, string>();
  const offsets = new Map<number, string>();
  let lastDay = Number.NaN;
  let lastDate = "";
  return (epochMs) => {
    if (!Number.isSafeInteger(epochMs) || epochMs < LOW || epochMs > HIGH)
      return formatInstant(epochMs, zone);
    const offset = offsetMinutesAt(epochMs, zone);
    if (!Number.isInteger(offset)) return formatInstant(epochMs, zone);
    const local = epochMs + offset * MINUTE;
    const day = Math.floor(local / DAY);
    const minutes = (local - day * DAY) / MINUTE;
    if (!Number.isInteger(minutes)) return formatInstant(epochMs, zone);
    if (day !== lastDay) {
      let date = dates.get(day);
      // "YYYY-MM-DDT" of the local date, as formatInstant writes it (in UTC: the shifted instant).
      if (date === undefined) dates.set(day, (date = formatInstant(day * DAY).slice(0, 11)));
      lastDay = day;
      lastDate = date;
    }
    let suffix = offsets.get(offset);
    if (suffix === undefined) {
      const abs = Math.abs(offset);
      suffix = `${offset < 0 ? "-" : "+"}${String(Math.floor(abs / 60)).padStart(2, "0")}:${String(abs % 60).padStart(2, "0")}`;
      offsets.set(offset, suffix);
    }
    return `${lastDate}${TWO[Math.floor(minutes / 60)]!}:${TWO[minutes % 60]!}:00${suffix}`;
  };
}
