/**
 * The first answer to a displaced booking (SchCP §5.8): "moved to another free resource of the
 * same type when one exists and the guest did not choose that resource; that changes nothing
 * the guest agreed to, so it needs no answer".
 *
 * Atomic in the hold store, so no unit is ever double booked: the other free unit is taken by
 * a short hold at the booking's exact time (placeHold: one allocation step that sees busy
 * blocks, holds and bookings alike), and the booking then takes that hold's units and frees its
 * old one in one step (moveBookingToHold, as an accepted change does, §5.7). Should the
 * booking change in between, the hold is released and nothing moved.
 */
import type { BookingRecord, HoldStore, Requirement } from "../../holds/port.js";
import { encodeHoldPayload } from "../holds/payload.js";
import { bookingIndexEntry } from "../bookings/index-entry.js";
import { decodeOrThrow, encodeBookingState, type BookingState } from "../bookings/state.js";
import type { CalendarStateStore } from "./state.js";
import type { CalendarUnits } from "./units.js";
import type { Clock } from "../../protocol/clock.js";

export interface UnitMoveDeps {
  readonly store: HoldStore;
  readonly state: CalendarStateStore;
  readonly clock: Clock;
  readonly hostId: string;
  readonly units: CalendarUnits;
}

/** Long enough for the two store steps; a hold left by a crash in between lapses on its own. */
const MOVE_HOLD_TTL_MS = 60_000;
const MAX_WRITES = 5;

/**
 * Moves the booking off `unit` to another unit free for its whole time; the unit it now has,
 * or undefined when none is free (or the booking changed meanwhile). Its time is unchanged.
 */
export async function moveToFreeUnit(
  deps: UnitMoveDeps,
  booking: BookingRecord,
  state: BookingState,
  unit: string,
): Promise<string | undefined> {
  const taken = new Set(booking.allocations.map((a) => a.resourceId));
  const others = deps.units.ids.filter((id) => !taken.has(id));
  if (others.length === 0 || !taken.has(unit)) return undefined;
  const now = deps.clock.now();
  const holdId = `h_displace_${booking.bookingId}_${now}`;
  // Every allocation the booking has, the displaced one on any other unit and the rest where
  // they are (the hold may overlap its own booking, so those stay available to it).
  const requirements: Requirement[] = booking.allocations.map((a) => ({
    type: deps.units.resourceType,
    candidates: (a.resourceId === unit ? others : [a.resourceId]).map((id) => ({ id, capacity: 1 })),
    units: a.units,
  }));
  const placed = await deps.store.placeHold({
    hostId: deps.hostId,
    holdId,
    serviceId: booking.serviceId,
    interval: booking.interval,
    requirements,
    ttlMs: MOVE_HOLD_TTL_MS,
    now,
    // The guest's own booking moving: no cap, pool or mandate counts it a second time.
    owner: { ...booking.owner, mandates: [] },
    caps: { principalProven: true },
    overlapBookingId: booking.bookingId,
    // A host's change of the booking: no edge keeps a record of it, so no edge ever shows it
    // (SchCP finds only booking holds with its offer; the sweeper sends nothing for a change).
    payload: encodeHoldPayload({
      v: 2,
      contract: { ...state.contract, kind: "change" },
      bookingId: booking.bookingId,
      by: "host",
      agentKey: state.agentKey,
      principal: state.principal,
    }),
  });
  if (!placed.ok) return undefined;
  const moved = await deps.store.moveBookingToHold(deps.hostId, booking.bookingId, holdId, deps.clock.now());
  if (!moved.ok) {
    await deps.store.releaseHold(deps.hostId, holdId, deps.clock.now());
    return undefined;
  }
  const resourceIds = moved.value.allocations.map((a) => a.resourceId);
  await recordUnits(deps, booking.bookingId, resourceIds);
  await ownEventUnits(deps, state.upstreamId, resourceIds);
  return resourceIds.find((id) => !taken.has(id));
}

/**
 * The booking's state names its new units. Nothing else changes: not the sequence, the
 * contract or `updatedAt`, and no receipt is signed, because a unit the gateway allocated is
 * not part of what the guest agreed to or sees (the wire Booking names only a chosen one).
 * A compare-and-set, repeated when another write got there first.
 */
async function recordUnits(deps: UnitMoveDeps, bookingId: string, resourceIds: readonly string[]) {
  for (let attempt = 0; attempt < MAX_WRITES; attempt++) {
    const record = await deps.store.getBooking(deps.hostId, bookingId);
    if (record === undefined) return;
    const state = decodeOrThrow(record.payload, bookingId);
    const moved = { ...state, resourceIds };
    const written = await deps.store.updateBookingPayload(
      deps.hostId,
      bookingId,
      encodeBookingState(moved),
      record.payload,
      bookingIndexEntry(moved),
    );
    if (written.ok || written.error.reason !== "stale") return;
  }
}

/**
 * The gateway's own event keeps the booking's units too. The event it writes names no unit
 * (own-events.ts: summary, description, time, status), so the calendar needs no rewrite; were
 * the unit ever written into it, this is where the rewrite would be asked for.
 */
async function ownEventUnits(deps: UnitMoveDeps, eventId: string, resourceIds: readonly string[]) {
  const event = await deps.state.getOwn(deps.hostId, eventId);
  if (event !== undefined) await deps.state.putOwn(deps.hostId, { ...event, resourceIds });
}
