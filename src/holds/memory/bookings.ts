/**
 * MemoryHoldStore's bookings (SchCP §5.6 cancel, §5.7 change acceptance, §6 attendance,
 * §7.2 proven principals). A booking occupies the allocations its hold had.
 */
import type { BookingRecord, Transition } from "../port.js";
import type { HostState } from "./host-state.js";
import { done, refused, stateRefusal } from "./lifecycle.js";

function update(host: HostState, record: BookingRecord): BookingRecord {
  host.putBooking({ types: host.bookings.get(record.bookingId)?.types ?? [], record });
  return record;
}

/** Cancelled, declined or expired: frees its time; releasing a released booking returns it. */
export function releaseBooking(host: HostState, bookingId: string): Transition<BookingRecord> {
  const b = host.bookings.get(bookingId)?.record;
  if (b === undefined) return refused("not_found");
  return done(b.state === "released" ? b : update(host, { ...b, state: "released" }));
}

/**
 * §5.7: "the held new time becomes the booking's and the old one is released in one
 * transaction". The hold must still be held and not lapsed; it ends as booked.
 */
export function moveBookingToHold(
  host: HostState,
  bookingId: string,
  holdId: string,
  now: number,
): Transition<BookingRecord> {
  const b = host.bookings.get(bookingId);
  if (b === undefined) return refused("not_found");
  if (b.record.state !== "active") return refused("released");
  const h = host.holds.get(holdId);
  if (h === undefined) return refused("not_found");
  if (h.record.state === "held" && h.record.expiresAt <= now) return refused("expired", host.expire(h));
  if (h.record.state !== "held") return stateRefusal(h.record);
  const record: BookingRecord = {
    ...b.record,
    interval: h.record.interval,
    allocations: h.record.allocations,
  };
  host.putBooking({ record, types: h.types });
  host.holds.set(holdId, { ...h, record: { ...h.record, state: "booked", bookingId, endedAt: now } });
  host.live.delete(holdId);
  return done(record);
}

export function updateBookingPayload(
  host: HostState,
  bookingId: string,
  payload: string,
  ifPayload?: string,
): Transition<BookingRecord> {
  const b = host.bookings.get(bookingId)?.record;
  if (b === undefined) return refused("not_found");
  // Compare-and-set: a concurrent update that got there first wins, and this one is told.
  if (ifPayload !== undefined && b.payload !== ifPayload) return refused("stale");
  return done(update(host, { ...b, payload }));
}

export function markAttendance(
  host: HostState,
  bookingId: string,
  attendance: "completed" | "no_show",
): Transition<BookingRecord> {
  const b = host.bookings.get(bookingId)?.record;
  if (b === undefined) return refused("not_found");
  if (b.state !== "active") return refused("released");
  return done(update(host, { ...b, attendance }));
}

/** §6/§7.2: a booking not released, not a no-show, whose end (with its buffer) has passed. */
export function isPrincipalProven(host: HostState, principal: string, now: number): boolean {
  for (const b of host.activeBookingsOf(principal)) {
    const r = b.record;
    if (r.owner.principal === principal && r.attendance !== "no_show" && r.interval.end <= now) return true;
  }
  return false;
}
