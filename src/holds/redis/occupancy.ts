/**
 * listOccupancy for Redis: a read-only snapshot for availability (SchCP §5.1: a snapshot,
 * not a promise; placeHold is where allocation is atomic). One read-only script
 * (lua/list-occupancy.lua), so the snapshot is consistent and costs one round trip; it
 * judges liveness as place-hold does (lapsed held holds occupy nothing).
 */
import type { Interval } from "../../calendar/index.js";
import type { OccupancyEntry } from "../port.js";
import { int, text } from "./codec.js";
import { asList, checkInterval, decode, type StoreContext } from "./context.js";

export async function listOccupancy(
  ctx: StoreContext,
  hostId: string,
  resourceIds: readonly string[],
  range: Interval,
  now: number,
): Promise<ReadonlyMap<string, readonly OccupancyEntry[]>> {
  const out = new Map<string, OccupancyEntry[]>();
  if (resourceIds.length === 0) return out;
  checkInterval(range);
  const k = ctx.keys;
  const keys = [
    ...resourceIds.map((id) => k.occupancy(hostId, id)),
    k.holdExpiry(hostId),
    `${k.host(hostId)}occlen`,
  ];
  const reply = await ctx.list("list-occupancy", keys, [range.start, range.end, now, ...resourceIds]);
  return decode("listOccupancy", () => {
    resourceIds.forEach((id, i) => {
      const rows = asList(reply[i] ?? []);
      const entries: OccupancyEntry[] = [];
      for (let r = 0; r + 2 < rows.length; r += 3) {
        const units = text(rows[r + 2]);
        entries.push({
          start: int(rows[r]),
          end: int(rows[r + 1]),
          // A busy block fills any capacity; it is the host's own, not an agent's.
          units: units === "" ? Number.POSITIVE_INFINITY : int(units),
          agent: units !== "",
        });
      }
      out.set(id, entries);
    });
    return out;
  });
}
