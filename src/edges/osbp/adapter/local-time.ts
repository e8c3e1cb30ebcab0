/**
 * Merchant-local time for the adapter (OSBP "Time Discipline"): the connector port speaks
 * epoch milliseconds, OSBP speaks both an RFC 3339 instant and the merchant-local wall-clock
 * in the organization's IANA zone. Every conversion goes through src/protocol/time, which is
 * DST-correct.
 *
 * One rule ties availability.find and booking.create together: a merchant-local start
 * ADDRESSES an instant when converting it back ("compatible" disambiguation) gives that same
 * instant. On a fall-back day the repeated hour's second occurrence is not addressable by
 * booking.create's date + time, so availability.find never offers it; a spring-forward gap
 * time addresses nothing and booking.create refuses it.
 */
import {
  formatWallClock,
  instantToWallClock,
  isValidTimeZone,
  wallClockToInstant,
  addDays,
  type LocalDate,
  type LocalTime,
  type WallClock,
} from "../../../protocol/time/index.js";

/** "2026-05-05T20:00:00.000Z", the instant form of the spec's examples. */
export const instantText = (ms: number): string => new Date(ms).toISOString();

export const knownZone = (zone: string): boolean => isValidTimeZone(zone);

/** Merchant-local wall-clock of an instant; the zone must be valid. */
export const localWall = (ms: number, zone: string): WallClock => instantToWallClock(ms, zone);

/** "2026-05-05T13:00:00" (no offset, milliseconds only when not zero). */
export const wallText = (w: WallClock): string => formatWallClock(w);

const pad = (n: number): string => String(n).padStart(2, "0");
export const dateText = (w: LocalDate): string =>
  `${String(w.year).padStart(4, "0")}-${pad(w.month)}-${pad(w.day)}`;
export const hhmmText = (w: { readonly hour: number; readonly minute: number }): string =>
  `${pad(w.hour)}:${pad(w.minute)}`;

const midnight = (d: LocalDate): WallClock => ({ ...d, hour: 0, minute: 0, second: 0, millisecond: 0 });

/**
 * [local midnight, next local midnight) of a merchant-local date: 23 or 25 hours long on a DST
 * day. A midnight inside a gap (zones that change at 00:00) moves forward to the first instant
 * the day has, which is still the day's start.
 */
export function localDayRange(date: LocalDate, zone: string): { start: number; end: number } | undefined {
  const start = wallClockToInstant(midnight(date), zone);
  const end = wallClockToInstant(midnight(addDays(date, 1)), zone);
  return start.ok && end.ok ? { start: start.value, end: end.value } : undefined;
}

/** True when the instant's merchant-local start converts back to the same instant (see file comment). */
export function addressable(ms: number, zone: string): boolean {
  const back = wallClockToInstant(localWall(ms, zone), zone);
  return back.ok && back.value === ms;
}

export type LocalInstant =
  | { readonly kind: "instant"; readonly ms: number }
  /** The wall-clock does not exist in the zone (a spring-forward gap). */
  | { readonly kind: "nonexistent" };

/** The instant a merchant-local date and time address; an overlap resolves to the earlier one. */
export function instantOfLocal(wall: WallClock, zone: string): LocalInstant {
  const ms = wallClockToInstant(wall, zone);
  if (!ms.ok) return { kind: "nonexistent" };
  return wallText(localWall(ms.value, zone)) === wallText(wall)
    ? { kind: "instant", ms: ms.value }
    : { kind: "nonexistent" };
}

export const wallOf = (date: LocalDate, time: LocalTime): WallClock => ({
  ...date,
  hour: time.hour,
  minute: time.minute,
  second: time.second,
  millisecond: 0,
});

/**
 * Wall-clock plus a duration with no zone at all (UTC arithmetic). Used only where the zone is
 * unknown and the booking will fail closed anyway; it can be an hour off across a DST change.
 */
export function naiveWallPlus(wall: WallClock, ms: number): WallClock {
  const at = wallClockToInstant(wall, "UTC");
  if (!at.ok) throw new TypeError(`not a wall-clock time: ${JSON.stringify(wall)}`);
  return instantToWallClock(at.value + ms, "UTC");
}
