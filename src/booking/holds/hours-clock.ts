/**
 * The zone clock working hours are read with (src/calendar/hours-index.ts): the request's zone
 * view, with the instants of local wall clocks remembered across requests. Why: near a DST
 * transition src/protocol/time asks Temporal (tenths of a millisecond each under the
 * polyfill), and every availability query expands a month of hours whose span keeps including
 * the same transition days. A zone's rules do not change while the process runs, so neither
 * does the instant of a (zone, wall clock); the memory is bounded.
 */
import type { Interval, ZoneClock } from "../../calendar/index.js";
import { isValidWallClock, type WallClock } from "../../protocol/time/index.js";
import { spanZoneView } from "../rules/zone-view.js";

const MAX_REMEMBERED = 20_000;
/** zone -> Date.UTC of the wall clock's fields -> its instant (undefined: none). */
const remembered = new Map<string, Map<number, number | undefined>>();

export function hoursClock(zone: string, span?: Interval): ZoneClock {
  const view = spanZoneView(zone, span);
  return {
    zone,
    wallClock: (ms) => view.wallClock(ms),
    instant(w: WallClock) {
      // Date.UTC reads years 0-99 as 19xx: those (and anything invalid) go to the view as before.
      if (w.year < 1000 || !isValidWallClock(w)) return view.instant(w);
      const key = Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second, w.millisecond);
      let instants = remembered.get(zone);
      if (instants === undefined) {
        if (remembered.size >= MAX_REMEMBERED) remembered.clear();
        remembered.set(zone, (instants = new Map<number, number | undefined>()));
      }
      if (instants.has(key)) return instants.get(key);
      const at = view.instant(w);
      if (instants.size >= MAX_REMEMBERED) instants.clear();
      instants.set(key, at);
      return at;
    },
  };
}
