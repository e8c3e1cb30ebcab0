/**
 * Local time in a host's zone, for the rules, pricing and slots of one request: the
 * src/protocol/time functions (DST-correct, "compatible" disambiguation), behind one small
 * interface so a request's code passes a zone around once.
 */
import type { Interval } from "../../calendar/index.js";
import {
  formatInstant,
  formatWallClock,
  instantToWallClock,
  isoWeekday,
  wallClockToInstant,
  type LocalDate,
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

/**
 * The view for one request's span. src/protocol/time converts by arithmetic away from zone
 * transitions, so the view is the protocol functions themselves; it only remembers the instants
 * of the wall clocks it was asked about (a query asks for the same local times many times).
 * `span` is kept in the signature for callers that know theirs.
 */
export function spanZoneView(zone: string, _span?: Interval): ZoneView {
  const memo = new Map<string, number | undefined>();
  return {
    ...zoneView(zone),
    instant(w) {
      const key = formatWallClock(w);
      if (!memo.has(key)) memo.set(key, instantOf(w, zone));
      return memo.get(key);
    },
  };
}

/** ISO weekday (1 = Monday) of a calendar date: the protocol's, kept under this name for callers. */
export function weekdayOf(d: LocalDate): number {
  return isoWeekday(d);
}

export const asZoneView = (zone: string | ZoneView): ZoneView =>
  typeof zone === "string" ? zoneView(zone) : zone;
