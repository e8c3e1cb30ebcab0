/**
 * Lengths of time in words, from their length rather than their spelling: SchCP §2.1
 * makes equivalent forms (P1W, P7D, PT168H) the same length, so they read the same.
 */

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

function count(n: number, unit: string): string {
  return `${n} ${unit}${n === 1 ? "" : "s"}`;
}

/**
 * A retention (whole days, §2.1): whole multiples of 365 days are years (the spec's
 * own example reads P365D as "1 year"), whole weeks are weeks (P2W, P14D: "2 weeks"),
 * anything else days ("30 days", "1 day"). Zero is the caller's own sentence.
 */
export function retentionWords(ms: number): string {
  const days = Math.floor(ms / DAY);
  if (days > 0 && days % 365 === 0) return count(days / 365, "year");
  if (days > 0 && days % 7 === 0) return count(days / 7, "week");
  return count(days, "day");
}

/**
 * A lead time such as reconfirm.before (§5.10): whole days from two days up
 * ("2 days"), otherwise hours, minutes and seconds ("24 hours", "1 hour and 30 minutes").
 * A day-sized lead under two days reads in hours, the way people say "24 hours before".
 */
export function leadTimeWords(ms: number): string {
  if (ms >= 2 * DAY && ms % DAY === 0) return count(ms / DAY, "day");
  const parts: string[] = [];
  const h = Math.floor(ms / HOUR);
  const m = Math.floor((ms % HOUR) / MINUTE);
  const s = (ms % MINUTE) / SECOND;
  if (h > 0) parts.push(count(h, "hour"));
  if (m > 0) parts.push(count(m, "minute"));
  if (s > 0) parts.push(count(s, "second"));
  if (parts.length === 0) return "0 seconds";
  return parts.length === 1 ? (parts[0] ?? "") : `${parts.slice(0, -1).join(", ")} and ${parts.at(-1) ?? ""}`;
}
