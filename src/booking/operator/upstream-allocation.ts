/**
 * The hold-store step of a move made in the host's own system of record (upstream-move.ts):
 * the booking's allocation goes to the upstream's time and resources atomically, the way the
 * calendar displacement moves a booking to another unit (calendar/displace-move.ts): a short
 * hold on the new time that may overlap the booking itself and nothing else (§5.7), then
 * moveBookingToHold, which takes the hold's time and frees the old one in one step.
 *
 * When that hold is refused because other gateway time (a booking, a live hold) overlaps it,
 * the upstream has double booked something the gateway knows about. The upstream is the
 * system of record (SchCP §10 "a façade over the host's system of record"), so its time is
 * still recorded: the booking moves to the new interval holding NO resource (a hold with no
 * requirements), and the caller marks it for the operator. Chosen over the alternatives:
 * - keeping the old allocation would leave the gateway's busy time at a time the booking no
 *   longer occupies, the disagreement this use case exists to end;
 * - releasing the booking's record (releaseBooking) would free the time but end the record,
 *   so no later change (a move back in Square, a guest's reschedule) could be applied to it;
 * - an allowance to overlap another booking does not exist in the store, and adding one
 *   would weaken the one guarantee the store gives (no two allocations on one unit's time).
 * The time stays busy where it matters: the other booking still holds the overlapped unit,
 * and Square's own availability, which every Square slot comes from, counts both bookings.
 */
import type {
  Allocation,
  BookingRecord,
  HoldStore,
  Interval,
  Requirement,
  TransitionRefusal,
} from "../../holds/port.js";
import type { HostRuntime } from "../api.js";
import { encodeHoldPayload } from "../holds/payload.js";
import { ensureBookingIndex } from "../bookings/index-entry.js";
import { ACTIVE_STATUSES, decodeBookingState, type BookingState } from "../bookings/state.js";
import type { Result } from "../../protocol/result.js";

/** Long enough for the two store steps; a hold left by a crash in between lapses on its own. */
const MOVE_HOLD_TTL_MS = 60_000;

export interface MoveTarget {
  readonly interval: Interval;
  /** One per allocation of the booking, with the units it takes. */
  readonly allocations: readonly Allocation[];
}

/**
 * The booking moved (with the bookings it now overlaps, when it went without resources), or
 * why not: "refused" when the resources were not free, else the store's refusal.
 */
export type Reallocated = Result<
  { readonly record: BookingRecord; readonly conflictsWith?: readonly string[] },
  "refused" | TransitionRefusal
>;

/** Moves the booking's allocation to `target`; without resources when other gateway time is there. */
export async function reallocate(
  store: HoldStore,
  holdIds: () => string,
  host: HostRuntime,
  record: BookingRecord,
  state: BookingState,
  target: MoveTarget,
  now: number,
): Promise<Reallocated> {
  const requirements = target.allocations.map((a): Requirement => {
    const res = host.catalog.resources.find((r) => r.id === a.resourceId);
    return {
      type: res?.type ?? "resource",
      candidates: [{ id: a.resourceId, capacity: res?.capacity ?? a.units }],
      units: a.units,
    };
  });
  const first = await moveTo(store, holdIds(), host, record, state, target.interval, requirements, now);
  if (first.ok) return first;
  if (first.error !== "refused") return first;
  const conflictsWith = await overlapping(store, host.config.id, record.bookingId, target);
  const bare = await moveTo(store, holdIds(), host, record, state, target.interval, [], now);
  return bare.ok ? { ok: true, value: { ...bare.value, conflictsWith } } : bare;
}

async function moveTo(
  store: HoldStore,
  holdId: string,
  host: HostRuntime,
  record: BookingRecord,
  state: BookingState,
  interval: Interval,
  requirements: readonly Requirement[],
  now: number,
): Promise<Reallocated> {
  const hostId = host.config.id;
  const placed = await store.placeHold({
    hostId,
    holdId,
    serviceId: record.serviceId,
    interval,
    requirements,
    ttlMs: MOVE_HOLD_TTL_MS,
    now,
    // The guest's own booking moving: no cap, pool or mandate counts it a second time.
    owner: { ...record.owner, mandates: [] },
    caps: { principalProven: true },
    overlapBookingId: record.bookingId,
    // The host's change: no edge keeps a record of it, so no edge ever shows this hold.
    payload: encodeHoldPayload({
      v: 2,
      contract: { ...state.contract, kind: "change" },
      bookingId: record.bookingId,
      by: "host",
      agentKey: state.agentKey,
      principal: state.principal,
    }),
  });
  if (!placed.ok) {
    if (requirements.length === 0) throw new Error(`booking ${record.bookingId}: ${placed.error.reason}`);
    return { ok: false, error: "refused" };
  }
  const moved = await store.moveBookingToHold(hostId, record.bookingId, holdId, now);
  if (!moved.ok) {
    await store.releaseHold(hostId, holdId, now);
    return { ok: false, error: moved.error.reason };
  }
  return { ok: true, value: { record: moved.value } };
}

/** The host's other active bookings on the target's resources and time (for the operator). */
async function overlapping(
  store: HoldStore,
  hostId: string,
  bookingId: string,
  target: MoveTarget,
): Promise<string[]> {
  await ensureBookingIndex(store, hostId);
  const resources = target.allocations.map((a) => a.resourceId);
  const found: string[] = [];
  for (const other of await store.bookingsOverlapping(hostId, resources, target.interval)) {
    if (other.bookingId === bookingId) continue;
    const decoded = decodeBookingState(other.payload);
    if (decoded.ok && !ACTIVE_STATUSES.has(decoded.value.status)) continue;
    found.push(other.bookingId);
  }
  return found;
}
