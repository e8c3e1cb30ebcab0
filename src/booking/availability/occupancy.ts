/**
 * The store's occupancy as decideAllocation reads it (SchCP §5.1 "Availability is a
 * snapshot, not a promise"; the hold is where atomicity is guaranteed). Availability reads
 * store.listOccupancy ONCE per query; this turns its answer into the two views the store's
 * own allocation rules take, so a start is offered exactly when a hold would be planned:
 * every entry per resource (busy blocks fill any capacity), and the agents' entries by
 * resource type for the walk-in reserve (§7.2).
 */
import type { AgentOccupancy, Occupancy, OccupancyOf } from "../../holds/allocation.js";
import type { OccupancyEntry } from "../../holds/port.js";

export type OccupancyMap = ReadonlyMap<string, readonly OccupancyEntry[]>;

export function allocationViews(
  occupancy: OccupancyMap,
  typeOf: (resourceId: string) => string | undefined,
): { occupancyOf: OccupancyOf; agent: AgentOccupancy[] } {
  const agent: AgentOccupancy[] = [];
  for (const [resourceId, entries] of occupancy) {
    const type = typeOf(resourceId);
    if (type === undefined) continue;
    for (const e of entries) if (e.agent) agent.push({ resourceId, type, start: e.start, end: e.end });
  }
  const occupancyOf: OccupancyOf = (c) =>
    (occupancy.get(c.id) ?? []).map((e): Occupancy => ({ start: e.start, end: e.end, units: e.units }));
  return { occupancyOf, agent };
}
