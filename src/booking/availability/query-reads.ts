/**
 * One store read of occupancy per availability query. A calendar host's connector reads the
 * store's busy time to find its free starts, and openings then reads the store again to test
 * those starts against holds and bookings: on Redis, two round trips for the same keys. Inside
 * `withQueryReads`, a read whose host, resources and range a read of the same query already
 * covered is answered from that read, narrowed to what was asked, so the query pays one.
 *
 * The narrowed answer is what the store would have answered then: every entry overlapping the
 * range (both stores' rule). It is the snapshot at the first read's `now`; a later reader's
 * `now` may be a little later, and a held hold lapsing in between still counts as live there,
 * which only offers less (SchCP §5.1: availability is a snapshot, not a promise; the hold is
 * where allocation is atomic). A reader whose `now` is earlier reads the store again.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { HoldStore, Interval, OccupancyEntry, OccupancyMap } from "../../holds/port.js";

interface Read {
  readonly hostId: string;
  readonly range: Interval;
  readonly now: number;
  readonly value: OccupancyMap;
}

const scope = new AsyncLocalStorage<Read[]>();

/** Runs `fn` with its own occupancy reads shared (nested calls share the outer query's). */
export function withQueryReads<T>(fn: () => Promise<T>): Promise<T> {
  return scope.getStore() === undefined ? scope.run([], fn) : fn();
}

/** store.listOccupancy, answered from an earlier read of the same query when one covers it. */
export async function readOccupancy(
  store: Pick<HoldStore, "listOccupancy">,
  hostId: string,
  resourceIds: readonly string[],
  range: Interval,
  now: number,
): Promise<OccupancyMap> {
  const reads = scope.getStore();
  if (reads !== undefined) {
    for (const r of reads) {
      if (r.hostId !== hostId || r.now > now || r.range.start > range.start || r.range.end < range.end)
        continue;
      if (!resourceIds.every((id) => r.value.has(id))) continue;
      return narrow(r.value, resourceIds, range);
    }
  }
  const value = await store.listOccupancy(hostId, resourceIds, range, now);
  reads?.push({ hostId, range, now, value });
  return value;
}

function narrow(value: OccupancyMap, resourceIds: readonly string[], range: Interval): OccupancyMap {
  const out = new Map<string, readonly OccupancyEntry[]>();
  for (const id of resourceIds) {
    const entries = value.get(id) ?? [];
    out.set(
      id,
      entries.filter((e) => e.start < range.end && e.end > range.start),
    );
  }
  return out;
}
