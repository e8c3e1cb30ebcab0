/**
 * A booking moved in the host's own system of record (a new start, or another team member in
 * Square's own tools): the gateway applies it, because the upstream is the truth (SchCP §10:
 * the endpoint is "a façade over the host's system of record"), and the gateway's busy time
 * (the hold store) and the guest's receipt must agree with it.
 *
 * - The allocation moves atomically (upstream-allocation.ts); when other gateway time is
 *   there, the booking still moves, holding no resource, and is marked for the operator
 *   (BookingState.attention, shown in the operator's view). A later move that allocates
 *   cleanly clears the mark.
 * - A change the guest agreed to (its time, or the resource its contract names) is recorded
 *   as the host's: start, end and the contract's time move, sequence + 1, each edge renews its
 *   record (SchCP signs a fresh receipt of the booking as it now stands), and the guest is
 *   told. The signed offer stays what the guest accepted; the receipt carries the new time.
 *   An open change offer is withdrawn (its hold released): it was asked against the old
 *   time, and with the sequence bumped it could not be accepted any more (§5.7 step 2).
 * - Only another unit the contract does not name is, as for a displacement (§5.8 "changes
 *   nothing the guest agreed to, so it needs no answer"), recorded quietly: no sequence, no
 *   receipt, no notice.
 * - Idempotent: `version` is the upstream's version of the booking; one not newer than the
 *   version recorded changes nothing, so a replayed or late notification is harmless.
 *
 * Which notice: §5.8 has none for a host's unilateral move. A host's time change there is a
 * proposal the guest answers (booking.change_proposed, which "does not change the booking"),
 * and WebhookEvent.type is a closed list an agent validates. The guest is sent
 * booking.change_approved, the one event whose receipt shows a booking that moved to a new
 * time ("the host's answer to a guest's move"); its receipt is the evidence of the new time.
 */
import type { BookingDeps, HostRuntime, UpstreamMove, UpstreamMoveOutcome, UseCase } from "../api.js";

export type { UpstreamMove, UpstreamMoveOutcome };
import type { Allocation, BookingRecord, Interval } from "../../holds/port.js";
import { err, ok } from "../../protocol/result.js";
import { bookingIndexEntry } from "../bookings/index-entry.js";
import { notifyGuest } from "../bookings/edges.js";
import { invalidState } from "../bookings/refuse.js";
import { ACTIVE_STATUSES, encodeBookingState, type BookingAttention } from "../bookings/state.js";
import type { BookingState } from "../bookings/state.js";
import { hostBooking, loadBooking, saveBooking } from "../bookings/store.js";
import { bookingView } from "../view.js";
import { reallocate, type MoveTarget } from "./upstream-allocation.js";

const MAX_WRITES = 5;

export async function applyUpstreamMove(
  deps: BookingDeps,
  hostId: string,
  bookingId: string,
  move: UpstreamMove,
): UseCase<UpstreamMoveOutcome> {
  const found = await hostBooking(deps, hostId, bookingId);
  if (!found.ok) return found;
  const { host, loaded } = found.value;
  const { state, record } = loaded;
  const unchanged = (why: Extract<UpstreamMoveOutcome, { outcome: "unchanged" }>["why"]) =>
    ok({ outcome: "unchanged" as const, booking: bookingView(state, deps.clock.now()), why });
  if (!ACTIVE_STATUSES.has(state.status)) return unchanged("not_active");
  if (state.upstreamVersion !== undefined && move.version <= state.upstreamVersion)
    return unchanged("not_newer");
  // The gateway's own accepted change (changes/apply-move.ts) moves the upstream first and
  // then the local booking: the upstream's notice of it can arrive in between. Taking it for
  // a host's move would release the very hold the swap is about to take; the swap settles it.
  const p = state.proposal;
  if (p !== undefined && p.start === move.start && p.expiresAt > deps.clock.now())
    return unchanged("own_change_pending");

  const target = targetOf(record, state, move);
  const start = target.interval.start;
  const end = move.end ?? (state.end === undefined ? undefined : start + (state.end - state.start));
  const resourceIds = target.allocations.map((a) => a.resourceId);
  const sameTime = start === state.start && end === state.end;
  const sameUnits = sameSet(
    resourceIds,
    record.allocations.map((a) => a.resourceId),
  );
  if (sameTime && sameUnits && state.attention === undefined) {
    await quietly(deps, hostId, bookingId, move.version, (s) => s);
    return unchanged("same");
  }

  const now = deps.clock.now();
  const chosen = state.contract.resource;
  const newChoice = chosen !== undefined && !resourceIds.includes(chosen.id) ? resourceIds[0] : undefined;
  const guestTold = !sameTime || newChoice !== undefined;
  if (guestTold && state.proposal !== undefined)
    await deps.store.releaseHold(hostId, state.proposal.holdId, now);

  const moved = await reallocate(deps.store, () => deps.ids.next("h_"), host, record, state, target, now);
  if (!moved.ok) return err(invalidState(`the booking could not be moved here (${moved.error})`));
  const conflict: BookingAttention | undefined =
    moved.value.conflictsWith === undefined ? undefined : attentionOf(moved.value.conflictsWith, now);

  const apply = (s: BookingState): BookingState => {
    const { attention: _a, proposal, end: _e, ...rest } = s;
    return {
      ...rest,
      start,
      ...(end !== undefined && { end }),
      resourceIds,
      ...(!guestTold && proposal !== undefined && { proposal }),
      ...(conflict !== undefined && { attention: conflict }),
      upstreamVersion: move.version,
    };
  };
  if (!guestTold) {
    const written = await quietly(deps, hostId, bookingId, move.version, apply);
    return ok({
      outcome: "moved",
      booking: bookingView(written ?? state, deps.clock.now()),
      guestTold,
      ...(conflict !== undefined && { conflict }),
    });
  }
  const saved = await saveBooking(
    deps,
    host,
    bookingId,
    (s) => {
      if (s.upstreamVersion !== undefined && s.upstreamVersion >= move.version) return ok(s);
      const next = apply(s);
      return ok({
        ...next,
        contract: contractAt(host, s, start, end, newChoice),
        sequence: s.sequence + 1,
      });
    },
    now,
  );
  if (!saved.ok) return saved;
  // A newer upstream version was applied meanwhile (another process): that one told the guest.
  if (saved.value.upstreamVersion !== move.version)
    return ok({
      outcome: "unchanged",
      booking: bookingView(saved.value, deps.clock.now()),
      why: "not_newer",
    });
  await notifyGuest(deps, host, saved.value, "change_approved", now);
  return ok({
    outcome: "moved",
    booking: bookingView(saved.value, deps.clock.now()),
    guestTold,
    ...(conflict !== undefined && { conflict }),
  });
}

/**
 * The new interval and allocations: the upstream's start, the same length (or its end, with
 * the booking's buffer after it), and each allocation on the upstream's resource: one the
 * upstream still names stays, another takes the next upstream resource not yet placed.
 */
function targetOf(record: BookingRecord, state: BookingState, move: UpstreamMove): MoveTarget {
  const start = move.start;
  let interval: Interval;
  if (move.end !== undefined && state.end !== undefined) {
    const buffer = Math.max(0, record.interval.end - state.end);
    interval = { start, end: move.end + buffer };
  } else {
    interval = { start, end: start + (record.interval.end - record.interval.start) };
  }
  // A booking left without resources by a conflict still names the upstream's in its state.
  const current: readonly Allocation[] =
    record.allocations.length > 0
      ? record.allocations
      : state.resourceIds.map((resourceId) => ({ resourceId, units: 1 }));
  if (move.resourceIds.length === 0) return { interval, allocations: current };
  const upstream = new Set(move.resourceIds);
  const kept = new Set(current.map((a) => a.resourceId).filter((id) => upstream.has(id)));
  const free = move.resourceIds.filter((id) => !kept.has(id));
  const allocations = current.map((a) =>
    upstream.has(a.resourceId) ? a : { resourceId: free.shift() ?? a.resourceId, units: a.units },
  );
  return { interval, allocations };
}

/** The contract at the new time; the resource it names follows the upstream's. */
function contractAt(
  host: HostRuntime,
  s: BookingState,
  start: number,
  end: number | undefined,
  newChoice: string | undefined,
): BookingState["contract"] {
  const { end: _e, resource, ...rest } = s.contract;
  const name = host.catalog.resources.find((r) => r.id === newChoice)?.name ?? newChoice;
  return {
    ...rest,
    start,
    ...(end !== undefined && { end }),
    ...(newChoice !== undefined && name !== undefined
      ? { resource: { id: newChoice, name } }
      : resource !== undefined && { resource }),
  };
}

function attentionOf(conflictsWith: readonly string[], at: number): BookingAttention {
  const other =
    conflictsWith.length > 0 ? `booking(s) ${conflictsWith.join(", ")}` : "a live hold of another guest";
  return {
    reason: "upstream_move_conflict",
    message:
      `moved in the host's own system onto time the gateway had given to ${other}; ` +
      "recorded at the upstream's time without a resource: settle the double booking upstream",
    conflictsWith,
    at,
  };
}

const sameSet = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && a.every((x) => b.includes(x));

/**
 * A write the guest does not see (the version, another unit, the operator's mark): no receipt,
 * no `updatedAt`, as calendar/displace-move.ts records units. A compare-and-set, repeated
 * when another write got there first; nothing when a newer version is recorded by then.
 */
async function quietly(
  deps: Pick<BookingDeps, "store">,
  hostId: string,
  bookingId: string,
  version: number,
  change: (s: BookingState) => BookingState,
): Promise<BookingState | undefined> {
  for (let attempt = 0; attempt < MAX_WRITES; attempt++) {
    const loaded = await loadBooking(deps.store, hostId, bookingId);
    if (loaded === undefined) return undefined;
    const s = loaded.state;
    if (s.upstreamVersion !== undefined && s.upstreamVersion >= version) return s;
    const next = { ...change(s), upstreamVersion: version };
    const written = await deps.store.updateBookingPayload(
      hostId,
      bookingId,
      encodeBookingState(next),
      loaded.payload,
      bookingIndexEntry(next),
    );
    if (written.ok) return next;
    if (written.error.reason !== "stale") return undefined;
  }
  return undefined;
}
