/**
 * Allocation of resource time (SchCP §4.1, §7.2 walk_in_reserve), pure.
 *
 * MemoryHoldStore calls these functions; RedisHoldStore's Lua script mirrors them step by
 * step, so both stores grant and refuse exactly the same requests. The algorithm:
 *
 * Intervals are half-open [start, end), epoch ms. Two intervals overlap when
 * a.start < b.end and b.start < a.end.
 *
 * 1. Occupancy of a resource = every live allocation on it (holds held and not lapsed,
 *    holds confirming, bookings active; minus the request's overlapBookingId booking)
 *    with its units, plus every imported busy block as units = the resource's capacity.
 *
 * 2. Concurrent use (maxConcurrentUnits): of the entries that overlap the interval, clip
 *    each to the interval and make two events, (max(start, i.start), +units) and
 *    (min(end, i.end), -units). Sort by time, and at equal times -units before +units
 *    (half-open: one ending at 10:00 and one starting at 10:00 never coexist). Walk them
 *    keeping a running sum; the answer is the largest sum reached (0 with no entries).
 *    NOT the sum of all overlapping entries: 1 unit 9–10 and 1 unit 10–11 use 1 at once.
 *
 * 3. Feasible resources per requirement, each candidate id considered once (first
 *    occurrence), in candidate order:
 *    - plain requirement: capacity - concurrent ≥ units; it takes `units` on one resource.
 *    - combine: only resources entirely free (concurrent = 0), ordered by capacity
 *      descending, ties by candidate order; each is taken whole (units = capacity).
 *    If a plain requirement has no feasible resource, or a combine requirement's feasible
 *    capacities add up to less than its units, refuse at once (slot_taken).
 *
 * 4. Assignment, all-or-nothing, every resource used by at most ONE requirement of the
 *    request (§4.1 "a distinct resource"): depth-first over the requirements in order.
 *    - plain: try each feasible resource not yet used, in order; recurse; on failure undo
 *      it and try the next.
 *    - combine: one option only: walk its ordered feasible list, skipping used resources,
 *      taking each until the taken capacities add up to ≥ units; if they never do, fail.
 *    The first complete assignment wins, so when the greedy choice works the result is
 *    the greedy one. A combine requirement's pick is fixed by §4.1 ("takes the largest
 *    first") and is not revisited: an assignment that would need it to leave a larger
 *    resource to a later requirement is not found (a refusal, never a double booking). Each resource tried (a plain try, or one combine pass) costs one
 *    step; after SEARCH_BUDGET steps the search gives up and refuses (slot_taken):
 *    refusing is always safe, and only requirements sharing candidates can backtrack.
 *    Result: allocations in requirement order; a combine's in the order taken.
 *
 * 5. Walk-in reserve (§7.2), only after an assignment was found, for each reserve in the
 *    order given: let N = the distinct resources of the assignment whose requirement type
 *    equals reserve.resourceType; if N is empty the reserve does not concern this hold.
 *    Otherwise take the AGENT occupancy of that type (live holds and active bookings; NOT
 *    imported busy blocks, which are the host's own walk-ins and phone bookings), drop the
 *    entries on resources in N and those not overlapping the interval, clip the rest to
 *    the interval, and sweep as in step 2 but counting DISTINCT resources: a resource
 *    counts while at least one of its entries covers the moment (a per-resource counter
 *    going 0→1 adds one, 1→0 removes one; ends before starts at equal times). If |N| +
 *    that maximum > typeCount - keep, refuse with walk_in_reserve naming that reserve.
 *
 * 6. Alternatives (the store's job, same atomic step): for each AlternativeCandidate in
 *    the order given, run steps 3–5 against the same occupancy; report the starts of the
 *    first five that pass. Caps are not re-checked (they do not depend on the time).
 */
import { overlaps, type Interval } from "../calendar/index.js";
import type { Requirement, ResourceCandidate, WalkInReserve } from "./port.js";
import type { Result } from "../protocol/result.js";

/** Steps the assignment search may take before it refuses (step 4). */
const SEARCH_BUDGET = 1000;

/** One entry of a resource's occupancy (step 1). */
export interface Occupancy {
  readonly start: number;
  readonly end: number;
  readonly units: number;
}

/** An allocation with the requirement type it met (the store keeps it for the reserve). */
export interface PlannedAllocation {
  readonly resourceId: string;
  readonly units: number;
  readonly type: string;
}

/** An agent's allocation (live hold or active booking) as the walk-in reserve sees it. */
export interface AgentOccupancy {
  readonly resourceId: string;
  readonly type: string;
  readonly start: number;
  readonly end: number;
}

export type OccupancyOf = (candidate: ResourceCandidate) => readonly Occupancy[];

/** The allocations, or which check refused (the reserve, for walk_in_reserve). */
export type AllocationDecision = Result<
  readonly PlannedAllocation[],
  { readonly reason: "slot_taken" } | { readonly reason: "walk_in_reserve"; readonly reserve: WalkInReserve }
>;

/** Half-open overlap (src/calendar), re-exported for the stores. */
export { overlaps };

/** Step 2: the most units in use at any one moment of the interval. */
export function maxConcurrentUnits(entries: readonly Occupancy[], interval: Interval): number {
  const events: Array<readonly [time: number, delta: number]> = [];
  for (const e of entries) {
    if (!overlaps(e, interval) || e.units <= 0) continue;
    events.push([Math.max(e.start, interval.start), e.units], [Math.min(e.end, interval.end), -e.units]);
  }
  events.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let sum = 0;
  let max = 0;
  for (const [, delta] of events) {
    sum += delta;
    if (sum > max) max = sum;
  }
  return max;
}

interface Feasible {
  readonly requirement: Requirement;
  readonly resources: readonly ResourceCandidate[];
}

/** Step 3. Undefined when a requirement cannot be met even on its own. */
function feasibleSets(
  requirements: readonly Requirement[],
  interval: Interval,
  occupancyOf: OccupancyOf,
): Feasible[] | undefined {
  const sets: Feasible[] = [];
  for (const requirement of requirements) {
    const seen = new Set<string>();
    const resources: Array<{ candidate: ResourceCandidate; index: number }> = [];
    requirement.candidates.forEach((candidate, index) => {
      if (seen.has(candidate.id)) return;
      seen.add(candidate.id);
      const used = maxConcurrentUnits(occupancyOf(candidate), interval);
      const fits = requirement.combine === true ? used === 0 : candidate.capacity - used >= requirement.units;
      if (fits) resources.push({ candidate, index });
    });
    if (requirement.combine === true) {
      resources.sort((a, b) => b.candidate.capacity - a.candidate.capacity || a.index - b.index);
      const total = resources.reduce((sum, r) => sum + r.candidate.capacity, 0);
      if (total < requirement.units) return undefined;
    } else if (resources.length === 0) {
      return undefined;
    }
    sets.push({ requirement, resources: resources.map((r) => r.candidate) });
  }
  return sets;
}

/** Step 4: depth-first, first complete assignment wins, bounded by SEARCH_BUDGET. */
function assign(sets: readonly Feasible[], budget: number): PlannedAllocation[] | undefined {
  const used = new Set<string>();
  const chosen: PlannedAllocation[][] = [];
  let steps = budget;

  const visit = (depth: number): boolean => {
    const set = sets[depth];
    if (set === undefined) return true;
    const { requirement, resources } = set;
    if (requirement.combine === true) {
      if (--steps < 0) return false;
      const taken: PlannedAllocation[] = [];
      let sum = 0;
      for (const r of resources) {
        if (sum >= requirement.units) break;
        if (used.has(r.id)) continue;
        taken.push({ resourceId: r.id, units: r.capacity, type: requirement.type });
        sum += r.capacity;
      }
      if (sum < requirement.units) return false;
      for (const t of taken) used.add(t.resourceId);
      chosen.push(taken);
      if (visit(depth + 1)) return true;
      chosen.pop();
      for (const t of taken) used.delete(t.resourceId);
      return false;
    }
    for (const r of resources) {
      if (used.has(r.id)) continue;
      if (--steps < 0) return false;
      used.add(r.id);
      chosen.push([{ resourceId: r.id, units: requirement.units, type: requirement.type }]);
      if (visit(depth + 1)) return true;
      chosen.pop();
      used.delete(r.id);
      if (steps < 0) return false;
    }
    return false;
  };

  return visit(0) ? chosen.flat() : undefined;
}

/** Steps 3–4: an all-or-nothing assignment of distinct resources, or undefined. */
export function planAllocation(
  requirements: readonly Requirement[],
  interval: Interval,
  occupancyOf: OccupancyOf,
  budget = SEARCH_BUDGET,
): PlannedAllocation[] | undefined {
  const sets = feasibleSets(requirements, interval, occupancyOf);
  return sets === undefined ? undefined : assign(sets, budget);
}

/** Step 5 sweep: the most distinct resources covered at one moment of the interval. */
export function maxDistinctResources(entries: readonly AgentOccupancy[], interval: Interval): number {
  const events: Array<readonly [time: number, delta: number, resourceId: string]> = [];
  for (const e of entries) {
    if (!overlaps(e, interval)) continue;
    events.push(
      [Math.max(e.start, interval.start), 1, e.resourceId],
      [Math.min(e.end, interval.end), -1, e.resourceId],
    );
  }
  events.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const cover = new Map<string, number>();
  let distinct = 0;
  let max = 0;
  for (const [, delta, id] of events) {
    const before = cover.get(id) ?? 0;
    const after = before + delta;
    cover.set(id, after);
    if (before === 0 && after > 0) distinct++;
    if (before > 0 && after === 0) distinct--;
    if (distinct > max) max = distinct;
  }
  return max;
}

/** Step 5: the first reserve this allocation would break, if any. */
export function violatedReserve(
  reserves: readonly WalkInReserve[],
  interval: Interval,
  planned: readonly PlannedAllocation[],
  agentOccupancy: readonly AgentOccupancy[],
): WalkInReserve | undefined {
  for (const reserve of reserves) {
    const mine = new Set(planned.filter((p) => p.type === reserve.resourceType).map((p) => p.resourceId));
    if (mine.size === 0) continue;
    const others = agentOccupancy.filter((o) => o.type === reserve.resourceType && !mine.has(o.resourceId));
    if (mine.size + maxDistinctResources(others, interval) > reserve.typeCount - reserve.keep) return reserve;
  }
  return undefined;
}

/** Steps 3–5 together: what the store does for the request and for each alternative. */
export function decideAllocation(
  requirements: readonly Requirement[],
  interval: Interval,
  occupancyOf: OccupancyOf,
  reserves: readonly WalkInReserve[],
  agentOccupancy: readonly AgentOccupancy[],
): AllocationDecision {
  const planned = planAllocation(requirements, interval, occupancyOf);
  if (planned === undefined) return { ok: false, error: { reason: "slot_taken" } };
  const reserve = violatedReserve(reserves, interval, planned, agentOccupancy);
  if (reserve !== undefined) return { ok: false, error: { reason: "walk_in_reserve", reserve } };
  return { ok: true, value: planned };
}
