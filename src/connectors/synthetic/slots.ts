/**
 * Whether the platform can serve one start of a service, and with which resources
 * (SchCP §4.1): every requirement met by a distinct resource that works, and is free, for
 * the whole interval including the buffer; capacity and parties as in §4.1; open-ended
 * services set time aside instead (§4.2).
 *
 * The assignment is the platform's own (assign.ts), not the gateway's.
 */
import type { CatalogResource, CatalogService, Interval } from "../port.js";
import { assign, peakUse, type Need, type Taken } from "./assign.js";
import { occupiesTime, type AppointmentAllocation, type SyntheticAppointment } from "./appointment.js";
import type { HoursView } from "./hours.js";

export interface SlotAsk {
  readonly service: CatalogService;
  readonly start: number;
  /** Service end; default start + duration. Ignored for an open-ended service. */
  readonly end?: number;
  readonly partySize: number;
  /**
   * Resources the caller named. A required type with any of them among its resources is
   * served only by those; a type with none of them is the platform's pick.
   */
  readonly only?: ReadonlySet<string>;
}

/** How the platform would seat an appointment at a start (its own rules, not the gateway's). */
export interface AppointmentPlan {
  readonly allocations: readonly AppointmentAllocation[];
  /** End of the time taken: end + buffer, or the set-aside end (§4.2). */
  readonly occupiedUntil: number;
  /** Every resource of a required type that is free for this start, in catalog order. */
  readonly freeResourceIds: readonly string[];
}

export type OccupancyIndex = ReadonlyMap<string, readonly Taken[]>;

/** Occupancy per resource from the appointments that take time, leaving out `ignoreId` (a move). */
export function occupancyIndex(
  appointments: readonly SyntheticAppointment[],
  ignoreId?: string,
): OccupancyIndex {
  const index = new Map<string, Taken[]>();
  for (const a of appointments) {
    if (a.id === ignoreId || !occupiesTime(a)) continue;
    for (const { resourceId, units } of a.allocations) {
      const list = index.get(resourceId) ?? [];
      list.push({ start: a.start, end: a.occupiedUntil, units });
      index.set(resourceId, list);
    }
  }
  return index;
}

/** The longest time one start can take, to size the appointment read around a range. */
export function longestTake(service: CatalogService, stretchCapMs: number): number {
  if (service.duration !== "open") return service.duration + service.bufferAfterMs;
  return typeof service.setAside === "number" ? service.setAside : stretchCapMs;
}

export function planSlot(
  resources: readonly CatalogResource[],
  hours: HoursView,
  occupancy: OccupancyIndex,
  ask: SlotAsk,
): AppointmentPlan | undefined {
  const { service, start, partySize, only } = ask;
  const windows = new Map<string, Interval | null>();
  const windowOf = (r: CatalogResource): Interval | null => {
    let w = windows.get(r.id);
    if (w === undefined) {
      w = takenWindow(service, start, ask.end, r, hours);
      windows.set(r.id, w);
    }
    return w;
  };

  const needs: Need[] = service.requires.map(({ resourceType: type, combine }) => {
    const ofType = resources.filter((r) => r.type === type);
    const named = only === undefined ? [] : ofType.filter((r) => only.has(r.id));
    const options = (named.length > 0 ? named : ofType)
      .filter((r) => windowOf(r) !== null)
      .map((r) => ({ id: r.id, capacity: r.capacity }));
    // Units: the party on shared capacity or a combined need, one otherwise (§4.1).
    const units = combine === true || ofType.some((r) => r.capacity > 1) ? partySize : 1;
    return combine === true ? { type, options, units, combine } : { type, options, units };
  });

  let outerEnd = start;
  for (const w of windows.values()) if (w !== null) outerEnd = Math.max(outerEnd, w.end);
  if (outerEnd === start) return undefined;
  // Each resource is judged over its own window: time taken outside it does not count.
  const useOf = (id: string): number => {
    const w = windows.get(id);
    return w === undefined || w === null ? 0 : peakUse(occupancy.get(id) ?? [], w);
  };
  const plan = assign(needs, useOf);
  if (plan === undefined) return undefined;

  const free = new Set<string>();
  for (const need of needs) {
    for (const o of need.options) {
      const used = useOf(o.id);
      if (need.combine === true ? used === 0 : o.capacity - used >= need.units) free.add(o.id);
    }
  }
  const occupiedUntil = Math.min(...plan.map((p) => windows.get(p.resourceId)?.end ?? outerEnd));
  return {
    allocations: plan.map(({ resourceId, units }) => ({ resourceId, units })),
    occupiedUntil,
    freeResourceIds: resources.filter((r) => free.has(r.id)).map((r) => r.id),
  };
}

/** The interval the service would take on this resource, or null when it is not working then. */
function takenWindow(
  service: CatalogService,
  start: number,
  end: number | undefined,
  r: CatalogResource,
  hours: HoursView,
): Interval | null {
  if (service.duration !== "open") {
    const w = { start, end: (end ?? start + service.duration) + service.bufferAfterMs };
    return hours.within(r, w) ? w : null;
  }
  // §4.2: set_aside covers any buffer; "until_close" (the default) ends when the resource closes.
  const aside = service.setAside ?? "until_close";
  if (aside === "until_close") {
    const close = hours.stretchEnd(r, start);
    return close === undefined || close <= start ? null : { start, end: close };
  }
  const w = { start, end: start + aside };
  return hours.within(r, w) ? w : null;
}
