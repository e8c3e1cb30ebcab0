/**
 * How the synthetic platform assigns resources to an appointment: its own code, as any outside
 * platform's is (the gateway's hold store has its own, src/holds/allocation.ts; tests catch the
 * two disagreeing). SchCP §4.1 states the rules both follow:
 *
 * - a resource's use at a moment is the units of the appointments on it then; an appointment
 *   ending at 10:00 and one starting at 10:00 never share a moment (half-open);
 * - a plain need takes `units` on one resource with that much capacity left over the whole time;
 * - a combined need takes entirely free resources whole, largest first (ties in catalog order),
 *   until their capacities add up to the party;
 * - each resource serves at most one need of an appointment; the first assignment found in
 *   catalog order wins, trying the next resource of an earlier need when a later one cannot
 *   be met. The search is bounded; a search that runs out answers "not available".
 */
import type { Interval } from "../port.js";

/** Time a resource is already taken for, with the units taken. */
export interface Taken {
  readonly start: number;
  readonly end: number;
  readonly units: number;
}

export interface Need {
  readonly type: string;
  /** Resources able to serve it, in catalog order. */
  readonly options: ReadonlyArray<{ readonly id: string; readonly capacity: number }>;
  readonly units: number;
  readonly combine?: boolean;
}

export interface Assigned {
  readonly resourceId: string;
  readonly units: number;
}

/** Tries before the search gives up. */
const SEARCH_LIMIT = 1000;

/** The most units in use at one moment of `during`. */
export function peakUse(taken: readonly Taken[], during: Interval): number {
  const edges: Array<[number, number]> = [];
  for (const t of taken) {
    const from = Math.max(t.start, during.start);
    const to = Math.min(t.end, during.end);
    if (from < to && t.units > 0) edges.push([from, t.units], [to, -t.units]);
  }
  // Ends before starts at the same instant: half-open time.
  edges.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let now = 0;
  let peak = 0;
  for (const [, d] of edges) {
    now += d;
    peak = Math.max(peak, now);
  }
  return peak;
}

/**
 * Resources for every need, or undefined. `use(id)` is the resource's peak use over the
 * appointment's time on it.
 */
export function assign(needs: readonly Need[], use: (id: string) => number): Assigned[] | undefined {
  const usable = needs.map((need) => {
    const seen = new Set<string>();
    const fit = need.options.filter((o) => {
      if (seen.has(o.id)) return false;
      seen.add(o.id);
      const used = use(o.id);
      return need.combine === true ? used === 0 : o.capacity - used >= need.units;
    });
    if (need.combine !== true) return fit;
    return fit
      .map((o, i) => ({ o, i }))
      .sort((a, b) => b.o.capacity - a.o.capacity || a.i - b.i)
      .map(({ o }) => o);
  });
  let tries = 0;
  const taken = new Set<string>();

  const search = (k: number): Assigned[] | undefined => {
    const need = needs[k];
    if (need === undefined) return [];
    const options = usable[k] ?? [];
    if (need.combine === true) {
      if (++tries > SEARCH_LIMIT) return undefined;
      const picked: Assigned[] = [];
      let total = 0;
      for (const o of options) {
        if (total >= need.units) break;
        if (taken.has(o.id)) continue;
        picked.push({ resourceId: o.id, units: o.capacity });
        total += o.capacity;
      }
      if (total < need.units) return undefined;
      picked.forEach((p) => taken.add(p.resourceId));
      const rest = search(k + 1);
      picked.forEach((p) => taken.delete(p.resourceId));
      return rest === undefined ? undefined : [...picked, ...rest];
    }
    for (const o of options) {
      if (taken.has(o.id)) continue;
      if (++tries > SEARCH_LIMIT) return undefined;
      taken.add(o.id);
      const rest = search(k + 1);
      taken.delete(o.id);
      if (rest !== undefined) return [{ resourceId: o.id, units: need.units }, ...rest];
      if (tries > SEARCH_LIMIT) return undefined;
    }
    return undefined;
  };
  return search(0);
}
