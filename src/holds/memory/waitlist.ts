/**
 * MemoryHoldStore's waitlist (SchCP §5.9), each step synchronous like the rest of the store:
 * joining under its caps, the line, and offerFreed, the release and the offer in one step,
 * the in-process twin of lua/offer-freed.lua.
 */
import { err, ok, type Result } from "../../protocol/result.js";
import type { BookingRecord, HoldRecord } from "../port.js";
import type {
  FreedOffer,
  FreedOutcome,
  WaitlistJoin,
  WaitlistJoinRefusal,
  WaitlistRecord,
  WaitlistStatus,
} from "../waitlist-port.js";
import * as bookings from "./bookings.js";
import type { HostState } from "./host-state.js";
import * as lifecycle from "./lifecycle.js";
import { placeHold } from "./place-hold.js";

/** Waiting or offered: counts against max_entries_per_agent. */
const isActive = (e: WaitlistRecord): boolean => e.status === "waiting" || e.status === "offered";

export function joinWaitlist(
  host: HostState,
  join: WaitlistJoin,
): Result<WaitlistRecord, WaitlistJoinRefusal> {
  if (host.waitlist.has(join.entryId)) return err({ reason: "entry_id_in_use" });
  let mine = 0;
  let seq = 0;
  for (const e of host.waitlist.values()) {
    seq = Math.max(seq, e.seq);
    if (e.agentKey === join.agentKey && isActive(e) && !(e.status === "waiting" && e.until <= join.now))
      mine++;
  }
  if (mine >= join.maxPerAgent) return err({ reason: "waitlist_limit", limit: join.maxPerAgent });
  for (const m of join.mandates) {
    if (host.countMandate(m.rootIss, m.jti, join.now) >= m.maxBookings)
      return err({ reason: "mandate_limit", limit: m.maxBookings });
  }
  const record: WaitlistRecord = {
    hostId: join.hostId,
    entryId: join.entryId,
    serviceId: join.serviceId,
    agentKey: join.agentKey,
    principal: join.principal,
    window: { start: join.window.start, end: join.window.end },
    createdAt: join.now,
    seq: seq + 1,
    status: "waiting",
    until: join.until,
    mandates: structuredClone(join.mandates),
    payload: join.payload,
  };
  host.waitlist.set(record.entryId, record);
  return ok(record);
}

export function waitingEntries(host: HostState, limit: number): WaitlistRecord[] {
  return [...host.waitlist.values()]
    .filter((e) => e.status === "waiting")
    .sort((a, b) => a.seq - b.seq)
    .slice(0, Math.max(0, limit));
}

export function offeredEntries(host: HostState, limit: number): WaitlistRecord[] {
  return [...host.waitlist.values()]
    .filter((e) => e.status === "offered")
    .sort((a, b) => a.seq - b.seq)
    .slice(0, Math.max(0, limit));
}

export function setWaitlistStatus(
  host: HostState,
  entryId: string,
  from: readonly WaitlistStatus[],
  to: WaitlistStatus,
): WaitlistRecord | undefined {
  const e = host.waitlist.get(entryId);
  if (e === undefined || !from.includes(e.status)) return undefined;
  const next = { ...e, status: to };
  host.waitlist.set(entryId, next);
  return next;
}

export function offerFreed(host: HostState, offer: FreedOffer): FreedOutcome {
  const { release, now } = offer;
  let freed: readonly string[] = [];
  let released: FreedOutcome["released"];
  if (release.kind === "booking") {
    const before = host.bookings.get(release.bookingId)?.record;
    const r = bookings.releaseBooking(host, release.bookingId);
    if (!r.ok) return { released: err({ reason: r.error.reason }), freed, passed: [] };
    // A booking already released frees nothing now: its time went out when it was released.
    if (before?.state === "active") freed = before.allocations.map((a) => a.resourceId);
    released = ok({ booking: r.value });
  } else if (release.kind === "move") {
    const before: BookingRecord | undefined = host.bookings.get(release.bookingId)?.record;
    const r = bookings.moveBookingToHold(host, release.bookingId, release.holdId, now);
    if (!r.ok) return { released: err({ reason: r.error.reason }), freed, passed: [] };
    // The old time of every resource the booking had is free now, whatever the new time takes.
    freed = (before?.allocations ?? []).map((a) => a.resourceId);
    released = ok({ booking: r.value });
  } else {
    const r = lifecycle.releaseHold(host, release.holdId, now);
    if (!r.ok) return { released: err({ reason: r.error.reason }), freed, passed: [] };
    // A lapsed offer's time waited for this step (§5.9 "a lapse moves down the line").
    host.releaseToLine(release.holdId);
    const entry = host.waitlist.get(release.entryId);
    if (entry?.status === "offered" && entry.holdId === release.holdId)
      host.waitlist.set(entry.entryId, { ...entry, status: release.entryStatus });
    freed = r.value.hold.allocations.map((a) => a.resourceId);
    released = ok({ hold: r.value.hold });
  }

  const mustUse = new Set(freed);
  const passed: Array<FreedOutcome["passed"][number]> = [];
  if (mustUse.size === 0) return { released, freed, passed };
  for (const candidate of offer.candidates) {
    const entry = host.waitlist.get(candidate.entryId);
    if (entry?.status !== "waiting" || entry.until <= now) {
      passed.push({ entryId: candidate.entryId, reason: "not_waiting" });
      continue;
    }
    // The entry stops counting against max_bookings while its offer's hold is tried, which
    // counts instead (§5.9, §7.1); passed over, it counts again.
    host.waitlist.set(entry.entryId, { ...entry, status: "offered" });
    const placed = placeHold(host, candidate.hold, mustUse);
    if (!placed.ok) {
      host.waitlist.set(entry.entryId, entry);
      passed.push({ entryId: entry.entryId, reason: placed.error.reason });
      continue;
    }
    const hold: HoldRecord = placed.value;
    const stored = host.holds.get(hold.holdId);
    if (candidate.line === true && stored !== undefined)
      host.holds.set(hold.holdId, { ...stored, line: true });
    host.waitlist.set(entry.entryId, { ...entry, status: "offered", holdId: hold.holdId });
    return { released, freed, offered: { entryId: entry.entryId, hold }, passed };
  }
  return { released, freed, passed };
}
