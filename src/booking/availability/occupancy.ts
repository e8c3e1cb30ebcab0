/**
 * The store's occupancy as decideAllocation reads it (SchCP §5.1 "Availability is a
 * snapshot, not a promise"; the hold is where atomicity is guaranteed). Availability reads
 * store.listOccupancy ONCE per query; this turns its answer into the two views the store's
 * own allocation rules take, so a start is offered exactly when a hold would be planned:
 * every entry per resource (busy blocks fill any capacity), and the agents' entries by
 * resource type for the walk-in reserve (§7.2).
 */
import type { AgentOccupancy, Occupancy, OccupancyOf } from "../../holds/allocation.js";
import type { OccupancyMap } from "../../holds/port.js";

/** The agents' entries (live holds and bookings) of the resources whose type is known. */
export function agentOccupancy(
  occupancy: OccupancyMap,
  typeOf: (resourceId: string) => string | undefined,
): AgentOccupancy[] {
  const agent: AgentOccupancy[] = [];
  for (const [resourceId, entries] of occupancy) {
    const type = typeOf(resourceId);
    if (type === undefined) continue;
    for (const e of entries) if (e.agent) agent.push({ resourceId, type, start: e.start, end: e.end });
  }
  return agent;
}

/**
 * Per interval, each resource's entries that may overlap it (every one that does, and a few
 * that end before it): those starting from the interval's start less the resource's longest
 * entry, up to its end.
 */
export function nearOccupancy(occupancy: OccupancyMap): (i: { start: number; end: number }) => OccupancyOf {
  const byId = new Map<string, { entries: Occupancy[]; longest: number }>();
  for (const [id, entries] of occupancy) {
    const mapped = entries
      .map((e): Occupancy => ({ start: e.start, end: e.end, units: e.units }))
      .sort((a, b) => a.start - b.start);
    byId.set(id, { entries: mapped, longest: mapped.reduce((m, e) => Math.max(m, e.end - e.start), 0) });
  }
  const lower = (xs: readonly Occupancy[], t: number) => {
    let lo = 0;
    let hi = xs.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (xs[mid]!.start < t) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  return (i) => (c) => {
    const r = byId.get(c.id);
    if (r === undefined) return [];
    return r.entries.slice(lower(r.entries, i.start - r.longest), lower(r.entries, i.end));
  };
}
