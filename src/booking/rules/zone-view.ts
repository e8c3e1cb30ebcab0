/**
 * Local time in a host's zone, for the rules, pricing and slots of one request.
 *
 * Why not call src/protocol/time for every start: under temporal-polyfill one zone lookup
 * costs a few tenths of a millisecond, and an availability query reads thousands of starts
 * (§7.2 allows 3,000). spanZoneView reads the zone's UTC-offset transitions over the
 * request's span ONCE (Temporal's getTimeZoneTransition) and then converts by arithmetic;
 * outside that span, or for an offset that is not whole minutes, it falls back to the
 * protocol functions, so its answers are always theirs (property-tested against them).
 * Wall clock to instant keeps Temporal's "compatible" disambiguation, memoized.
 */
import { Temporal } from "temporal-polyfill";
import type { Interval } from "../../holds/port.js";
import {
  formatInstant,
  formatWallClock,
  instantToWallClock,
  wallClockToInstant,
  type WallClock,
} from "../../protocol/time/index.js";

export interface ZoneView {
  readonly zone: string;
  wallClock(epochMs: number): WallClock;
  /** The instant of a local wall clock ("compatible": gaps move forward, overlaps take the earlier). */
  instant(w: WallClock): number | undefined;
  /** RFC 3339 with the zone's offset, exactly as formatInstant(epochMs, zone). */
  format(epochMs: number): string;
}

const instantOf = (w: WallClock, zone: string): number | undefined => {
  const r = wallClockToInstant(w, zone, "compatible");
  return r.ok ? r.value : undefined;
};

/** The protocol functions, one call each. */
export function zoneView(zone: string): ZoneView {
  return {
    zone,
    wallClock: (ms) => instantToWallClock(ms, zone),
    instant: (w) => instantOf(w, zone),
    format: (ms) => formatInstant(ms, zone),
  };
}

const DAY = 86_400_000;
const MAX_TRANSITIONS = 64;

/** Offsets over [span.start − 2 days, span.end + 2 days], read once from the zone's rules. */
export function spanZoneView(zone: string, span: Interval): ZoneView {
  const slow = zoneView(zone);
  const from = span.start - 2 * DAY;
  const to = span.end + 2 * DAY;
  const changes: Array<{ at: number; offsetMs: number }> = [];
  let z = Temporal.Instant.fromEpochMilliseconds(from).toZonedDateTimeISO(zone);
  changes.push({ at: from, offsetMs: z.offsetNanoseconds / 1e6 });
  for (let i = 0; i < MAX_TRANSITIONS; i++) {
    const next = z.getTimeZoneTransition("next");
    if (next === null || next.epochMilliseconds > to) break;
    changes.push({ at: next.epochMilliseconds, offsetMs: next.offsetNanoseconds / 1e6 });
    z = next;
  }
  const offsetAt = (ms: number): number | undefined => {
    if (!Number.isSafeInteger(ms) || ms < from || ms > to) return undefined;
    let offset: number | undefined;
    for (const c of changes) {
      if (c.at > ms) break;
      offset = c.offsetMs;
    }
    return offset !== undefined && offset % 60_000 === 0 ? offset : undefined;
  };
  const memo = new Map<string, number | undefined>();
  return {
    zone,
    wallClock(ms) {
      const offset = offsetAt(ms);
      if (offset === undefined) return slow.wallClock(ms);
      const d = new Date(ms + offset);
      return {
        year: d.getUTCFullYear(),
        month: d.getUTCMonth() + 1,
        day: d.getUTCDate(),
        hour: d.getUTCHours(),
        minute: d.getUTCMinutes(),
        second: d.getUTCSeconds(),
        millisecond: d.getUTCMilliseconds(),
      };
    },
    instant(w) {
      const key = formatWallClock(w);
      if (!memo.has(key)) memo.set(key, instantOf(w, zone));
      return memo.get(key);
    },
    format(ms) {
      const offset = offsetAt(ms);
      const w = offset === undefined ? undefined : this.wallClock(ms);
      if (offset === undefined || w === undefined || w.year > 9999 || w.year < 0) return slow.format(ms);
      const abs = Math.abs(offset) / 60_000;
      const hhmm = `${String(Math.floor(abs / 60)).padStart(2, "0")}:${String(abs % 60).padStart(2, "0")}`;
      return `${formatWallClock(w)}${offset < 0 ? "-" : "+"}${hhmm}`;
    },
  };
}

/** ISO weekday (1 = Monday) of a calendar date, by arithmetic. */
export function weekdayOf(d: {
  readonly year: number;
  readonly month: number;
  readonly day: number;
}): number {
  // setUTCFullYear, not Date.UTC: the latter reads years 0–99 as 1900–1999.
  const date = new Date(0);
  date.setUTCFullYear(d.year, d.month - 1, d.day);
  const js = date.getUTCDay();
  return js === 0 ? 7 : js;
}

export const asZoneView = (zone: string | ZoneView): ZoneView =>
  typeof zone === "string" ? zoneView(zone) : zone;
