/**
 * The host's local days, by which the sync partitions busy time: an occurrence is laid in
 * each local day it touches, one piece per day. Local, not UTC, days: a UTC midnight falls
 * inside business hours in most zones (16:00 in Vancouver), and the two pieces of one event
 * may land on different units of a multi-unit host.
 *
 * A day is numbered as its date's days since 1970-01-01; it runs from its local midnight to
 * the next (23 or 25 hours across a DST change; where midnight does not exist, from the first
 * instant of the date).
 */
import { offsetMinutesAt, wallClockToInstant } from "../../protocol/time/index.js";

const DAY_MS = 86_400_000;
const MAX_CACHED = 20_000;

export interface LocalDays {
  readonly zone: string;
  /** The local day an instant falls in. */
  readonly dayOf: (epochMs: number) => number;
  /** The instant a local day starts. */
  readonly startOf: (day: number) => number;
  /** The day's date, "YYYY-MM-DD". */
  readonly label: (day: number) => string;
}

export function localDays(zone: string): LocalDays {
  const starts = new Map<number, number>();
  const startOf = (day: number): number => {
    const known = starts.get(day);
    if (known !== undefined) return known;
    const d = new Date(day * DAY_MS);
    const at = wallClockToInstant(
      {
        year: d.getUTCFullYear(),
        month: d.getUTCMonth() + 1,
        day: d.getUTCDate(),
        hour: 0,
        minute: 0,
        second: 0,
        millisecond: 0,
      },
      zone,
      "compatible",
    );
    if (!at.ok) throw new TypeError(`no local midnight for day ${day} in ${zone}`);
    if (starts.size >= MAX_CACHED) starts.clear();
    starts.set(day, at.value);
    return at.value;
  };
  const dayOf = (t: number): number => {
    let day = Math.floor((t + offsetMinutesAt(Math.trunc(t), zone) * 60_000) / DAY_MS);
    // The estimate is off only next to a transition at midnight.
    while (t < startOf(day)) day--;
    while (t >= startOf(day + 1)) day++;
    return day;
  };
  return {
    zone,
    dayOf,
    startOf,
    label: (day) => new Date(day * DAY_MS).toISOString().slice(0, 10),
  };
}
