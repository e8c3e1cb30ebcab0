/**
 * Capacity on a calendar (SchCP §10). A calendar knows no resources, so the host
 * declares its capacity: "2 bays", or just "me" (one unit). The gateway turns that into that
 * many resources of one type, and lays the calendar's busy time over them:
 *
 * - an event from a calendar the host mapped to a resource occupies that resource;
 * - any other busy event occupies ONE unit, the one free soonest (interval partitioning), so
 *   two overlapping events on a 2-bay calendar fill both bays and a third overlapping one
 *   changes nothing that was not already full;
 * - the gateway's own events are not laid here: its bookings already occupy the units it
 *   allocated, through the hold store.
 *
 * Pure: no I/O.
 */
import type { Interval } from "../../calendar/index.js";
import { mergeIntervals } from "../../calendar/index.js";

export interface CalendarUnits {
  /** SchCP resource_type of every unit (§4.1): "person" for "just me", "bay", "chair"… */
  readonly resourceType: string;
  /** Resource ids, in order of preference. */
  readonly ids: readonly string[];
}

/** One busy occurrence, with the resource its calendar is mapped to, if any. */
export interface BusyOccurrence extends Interval {
  readonly resourceId?: string;
}

/**
 * Busy intervals per unit. Mapped occurrences go to their resource; the rest, by start, to
 * the unit whose busy time ends first (a unit already free at the start when there is one).
 * Every unit appears in the answer, with [] when nothing occupies it, so the caller replaces
 * yesterday's busy time with today's for all of them.
 */
export function layBusyOnUnits(
  units: CalendarUnits,
  occurrences: readonly BusyOccurrence[],
  /**
   * Time each unit already gives the gateway's own holds and bookings: an unmapped calendar
   * event takes another unit when one is free, so a booking is displaced only when it must be.
   */
  avoid: ReadonlyMap<string, readonly Interval[]> = new Map(),
): ReadonlyMap<string, readonly Interval[]> {
  const byUnit = new Map<string, Interval[]>(units.ids.map((id) => [id, []]));
  const free: BusyOccurrence[] = [];
  for (const o of occurrences) {
    if (o.end <= o.start) continue;
    const mapped = o.resourceId === undefined ? undefined : byUnit.get(o.resourceId);
    if (mapped !== undefined) mapped.push({ start: o.start, end: o.end });
    else free.push(o);
  }
  if (units.ids.length > 0) {
    // Each unit's busy-until, seeded with its mapped time so unmapped events avoid it.
    const until = units.ids.map((id) => ({
      id,
      end: -Infinity,
      mapped: mergeIntervals([...(byUnit.get(id) ?? []), ...(avoid.get(id) ?? [])]),
    }));
    const sorted = [...free].sort((a, b) => a.start - b.start || a.end - b.end);
    for (const o of sorted) {
      const unit = pickUnit(until, o);
      byUnit.get(unit.id)?.push({ start: o.start, end: o.end });
      unit.end = Math.max(unit.end, o.end);
    }
  }
  return new Map([...byUnit].map(([id, busy]) => [id, mergeIntervals(busy)]));
}

interface UnitCursor {
  readonly id: string;
  end: number;
  readonly mapped: readonly Interval[];
}

/** A unit free for the whole occurrence if one is; else the one whose busy time ends first. */
function pickUnit(units: UnitCursor[], o: Interval): UnitCursor {
  const freeUnit = units.find(
    (u) => u.end <= o.start && !u.mapped.some((m) => m.start < o.end && m.end > o.start),
  );
  if (freeUnit !== undefined) return freeUnit;
  let best = units[0] as UnitCursor;
  for (const u of units) if (busyUntil(u, o) < busyUntil(best, o)) best = u;
  return best;
}

/** When a unit is next free at or after the occurrence's start. */
function busyUntil(u: UnitCursor, o: Interval): number {
  let end = Math.max(u.end, o.start);
  for (const m of u.mapped) if (m.start <= end && m.end > end) end = m.end;
  return end;
}

/** "2 bays" → bay-1, bay-2; "me" → one person. Ids are stable so stored busy time keeps its key. */
export function unitsFor(capacity: { readonly resourceType: string; readonly units: number }): CalendarUnits {
  const n = Math.max(1, Math.floor(capacity.units));
  return {
    resourceType: capacity.resourceType,
    ids: Array.from({ length: n }, (_, i) => `${capacity.resourceType}-${i + 1}`),
  };
}
