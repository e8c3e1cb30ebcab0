/**
 * Displaced bookings on a calendar host (SchCP §10 "A sync that shows a confirmed
 * booking's time busy displaces it (§5.8)"). After a sync laid the calendar's busy time over a
 * booking's unit (sync.ts reports it as a conflict), each such booking, soonest first:
 *
 * 1. moves to another unit free for its whole time, when the guest did not choose the unit
 *    (the contract names a resource only when the guest chose or the edge pinned one,
 *    contract.ts) — atomic in the hold store, the guest's time unchanged (displace-move.ts);
 * 2. else, if it is confirmed, gets a host change offer of the nearest free time, open until
 *    it would have started, through the operator's own propose, so the guest hears
 *    booking.change_proposed (displace-offer.ts);
 * 3. else is unresolved: reported in the sync report (logs, operator API) and told to the host
 *    (displace-notice.ts).
 *
 * Repeated syncs do not repeat themselves: what was done for each booking in conflict is kept
 * (CalendarStateStore.displacements), so an open offer is reported, not made again; an offer the
 * guest let lapse or declined is not made a second time (the booking is then unresolved); and the
 * host hears of an unresolved booking once per reason. A booking no longer in conflict is
 * forgotten. A unit move is tried on every sync, since it needs nobody's answer.
 *
 * A pending booking (waiting for the host's approval) is moved when a unit is free, else left
 * to the host's answer and reported: a counter-offer is the host's to make (§5.11).
 *
 * A meeting member's booking (§5.12) is moved to a free unit the same way; else, before commit,
 * the calendar declines it (`declineMeeting`, displace-meeting.ts, which says why), and a
 * confirmed one is reported unresolved ("meeting_confirmed"): no host change offer either way.
 */
import { guestOnRecord } from "../bookings/guest.js";
import type { HostRuntime, OperatorApi } from "../api.js";
import type { BookingRecord, HoldStore } from "../../holds/port.js";
import { ensureBookingIndex } from "../bookings/index-entry.js";
import { decodeOrThrow, type BookingState } from "../bookings/state.js";
import { moveToFreeUnit } from "./displace-move.js";
import { unresolvedNotice, type UnaddressedMessage } from "./displace-notice.js";
import { offerNearestTime } from "./displace-offer.js";
import type { CalendarStateStore, DisplacementRecord, SyncConflict } from "./state.js";
import type { CalendarHostPlan } from "./sync.js";
import type { Clock } from "../../protocol/clock.js";

export type { UnaddressedMessage } from "./displace-notice.js";

export interface DisplaceDeps {
  readonly store: HoldStore;
  readonly state: CalendarStateStore;
  readonly clock: Clock;
  readonly plan: CalendarHostPlan;
  /** The host as the booking core runs it: its config, catalog and free starts. */
  readonly host: HostRuntime;
  /** The operator's host change offer (OperatorApi.propose): the same path, the same webhooks. */
  readonly propose: OperatorApi["propose"];
  /** Tells the host (its approver) of an unresolved booking, when a messenger is configured. */
  readonly tellHost?: (notice: UnaddressedMessage) => void;
  /**
   * SchCP §5.12: declines a pending_host or tentative meeting booking whose time (`start`) the
   * calendar shows busy (displace-meeting.ts declineBusyMeeting). Absent: reported unresolved.
   */
  readonly declineMeeting?: (
    hostId: string,
    bookingId: string,
    start: number,
  ) => Promise<{ readonly ok: boolean }>;
}

/**
 * The sync's occupancy names units and times, not bookings: a conflict with no active booking
 * on that unit for exactly that time is reported as "hold" (left as it is), never guessed at.
 */
const keyOf = (resourceId: string, start: number, end: number) => `${resourceId}\u0000${start}\u0000${end}`;

/** Displaces each conflicting booking, soonest first; answers every conflict with its outcome. */
export async function displaceConflicts(
  deps: DisplaceDeps,
  conflicts: readonly SyncConflict[],
): Promise<SyncConflict[]> {
  const hostId = deps.plan.hostId;
  const previous = await deps.state.displacements(hostId);
  const ordered = [...conflicts].sort(
    (a, b) => a.start - b.start || a.resourceId.localeCompare(b.resourceId),
  );
  const found = ordered.length === 0 ? new Map<string, BookingRecord>() : await bookingsIn(deps, ordered);
  const records: Record<string, DisplacementRecord> = {};
  const out: SyncConflict[] = [];
  for (const c of ordered) {
    const booking = found.get(keyOf(c.resourceId, c.start, c.end));
    if (booking === undefined) {
      out.push({ ...c, outcome: "hold" });
      continue;
    }
    const state = decodeOrThrow(booking.payload, booking.bookingId);
    const before = previous[booking.bookingId];
    const { conflict, record } = await displaceOne(
      deps,
      c,
      booking,
      state,
      before?.start === state.start ? before : undefined,
    );
    out.push(conflict);
    if (record !== undefined) records[booking.bookingId] = record;
  }
  if (Object.keys(records).length > 0 || Object.keys(previous).length > 0)
    await deps.state.putDisplacements(hostId, records);
  return out;
}

/**
 * The active bookings behind the conflicts, by unit and time (one unit holds one at a time),
 * from the store's time index: the oldest booking is found like the newest.
 */
async function bookingsIn(deps: DisplaceDeps, conflicts: readonly SyncConflict[]) {
  const hostId = deps.plan.hostId;
  await ensureBookingIndex(deps.store, hostId);
  const found = new Map<string, BookingRecord>();
  for (const c of conflicts) {
    const key = keyOf(c.resourceId, c.start, c.end);
    if (found.has(key)) continue;
    const on = await deps.store.bookingsOverlapping(hostId, [c.resourceId], { start: c.start, end: c.end });
    const record = on.find((b) => b.interval.start === c.start && b.interval.end === c.end);
    if (record !== undefined) found.set(key, record);
  }
  return found;
}

interface Displaced {
  readonly conflict: SyncConflict;
  readonly record?: DisplacementRecord;
}

async function displaceOne(
  deps: DisplaceDeps,
  c: SyncConflict,
  booking: BookingRecord,
  state: BookingState,
  prior: DisplacementRecord | undefined,
): Promise<Displaced> {
  const now = deps.clock.now();
  const since = prior?.since ?? now;
  const base: SyncConflict = { ...c, bookingId: booking.bookingId, since };
  const remember = (r: Omit<DisplacementRecord, "bookingId" | "start" | "since">): DisplacementRecord => ({
    bookingId: booking.bookingId,
    start: state.start,
    since,
    ...r,
  });
  const unresolved = (reason: string): Displaced => {
    if (prior?.notified !== reason) tell(deps, c, state, reason);
    return {
      conflict: { ...base, outcome: "unresolved", reason },
      record: remember({
        outcome: "unresolved",
        notified: reason,
        ...(prior?.proposalId !== undefined && { proposalId: prior.proposalId }),
      }),
    };
  };
  const offered = (p: { proposalId: string; start: number; expiresAt: number }): Displaced => ({
    conflict: { ...base, outcome: "change_offered", proposal: p },
    record: remember({ outcome: "change_offered", proposalId: p.proposalId }),
  });

  // 1. Another unit, unless the guest chose this one.
  const chosen = state.contract.resource?.id === c.resourceId;
  if (!chosen) {
    const to = await moveToFreeUnit(
      {
        store: deps.store,
        state: deps.state,
        clock: deps.clock,
        hostId: deps.plan.hostId,
        units: deps.plan.units,
      },
      booking,
      state,
      c.resourceId,
    );
    if (to !== undefined) return { conflict: { ...base, outcome: "moved", movedTo: to } };
    // Another sync of this host may have moved it meanwhile (its hold took the free unit).
    const current = await deps.store.getBooking(deps.plan.hostId, booking.bookingId);
    const units = current?.state === "active" ? current.allocations.map((a) => a.resourceId) : [];
    const [unit] = units;
    if (unit !== undefined && !units.includes(c.resourceId))
      return { conflict: { ...base, outcome: "moved", movedTo: unit } };
  }
  // A meeting: declined before commit, reported once confirmed (displace-meeting.ts).
  if (state.meeting !== undefined) {
    if (state.status === "confirmed") return unresolved("meeting_confirmed");
    const declined = await deps.declineMeeting?.(deps.plan.hostId, booking.bookingId, state.start);
    if (declined?.ok === true) return { conflict: { ...base, outcome: "declined" } };
    return unresolved("meeting_not_declined");
  }
  if (state.status !== "confirmed") return unresolved("awaiting_approval");

  // 2. A host change offer, once. An open one of the host's (this one's, or the operator's
  //    own) is the offer: reported again, not replaced.
  const open = state.proposal;
  if (open?.by === "host" && open.expiresAt > now)
    return offered({ proposalId: open.proposalId, start: open.start, expiresAt: open.expiresAt });
  if (prior?.proposalId !== undefined) return unresolved("offer_not_accepted");
  // An open move of the guest's own is left alone: a host offer would replace it (§5.7).
  if (open?.by === "guest" && open.expiresAt > now) return unresolved("guest_change_open");
  const offer = await offerNearestTime(
    { clock: deps.clock, host: deps.host, propose: deps.propose },
    state,
    chosen ? c.resourceId : undefined,
  );
  if (offer.ok) return offered(offer.value);

  // 3. Neither.
  return unresolved(offer.error);
}

function tell(deps: DisplaceDeps, c: SyncConflict, state: BookingState, reason: string): void {
  if (deps.tellHost === undefined) return;
  const host = deps.host;
  const guest = guestOnRecord(state, deps.clock.now());
  deps.tellHost(
    unresolvedNotice({
      hostId: host.config.id,
      hostName: host.config.name,
      zone: host.config.timezone,
      bookingId: state.bookingId,
      serviceName: state.contract.service.name,
      start: state.start,
      ...(state.end !== undefined && { end: state.end }),
      resourceId: c.resourceId,
      reason,
      ...(guest !== undefined && { guest }),
    }),
  );
}
