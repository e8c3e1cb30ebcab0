/**
 * §5.2 surcharges: when a slot qualifies, read in the host's zone. same_day: the slot is on
 * the local day the offer is made; weekend: Saturday or Sunday; after_hours: the slot starts
 * at or after `after` (default 17:00 local).
 */
import type { Surcharge } from "../api.js";
import { asZoneView, weekdayOf, type ZoneView } from "../rules/zone-view.js";

const DEFAULT_AFTER_HOURS = "17:00";

const minutesOf = (hhmm: string): number => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

export function surchargeApplies(s: Surcharge, start: number, now: number, zone: string | ZoneView): boolean {
  const view = asZoneView(zone);
  const local = view.wallClock(start);
  switch (s.when) {
    case "same_day": {
      const today = view.wallClock(now);
      return today.year === local.year && today.month === local.month && today.day === local.day;
    }
    case "weekend":
      return weekdayOf(local) >= 6;
    case "after_hours":
      return local.hour * 60 + local.minute >= minutesOf(s.after ?? DEFAULT_AFTER_HOURS);
  }
}
