/**
 * §7.2 walk_in_reserve for one start: the reserves whose days include the start's local
 * weekday (all days when none are listed), with the type's resource count from the catalog.
 */
import type { WalkInReserve } from "../../holds/port.js";
import type { HostRuntime } from "../api.js";
import { asZoneView, weekdayOf, type ZoneView } from "../rules/zone-view.js";

export function reservesAt(runtime: HostRuntime, start: number, view?: ZoneView): WalkInReserve[] {
  const reserves = runtime.config.policies.walkInReserve ?? [];
  if (reserves.length === 0) return [];
  const weekday = weekdayOf(asZoneView(view ?? runtime.config.timezone).wallClock(start));
  return reserves
    .filter((r) => r.days === undefined || r.days.includes(weekday))
    .map((r) => ({
      resourceType: r.resourceType,
      keep: r.keep,
      typeCount: runtime.catalog.resources.filter((res) => res.type === r.resourceType).length,
    }));
}
