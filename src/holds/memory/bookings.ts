/**
 * MemoryHoldStore's bookings (SchCP §5.6 cancel, §5.7 change acceptance, §6 attendance,
 * §7.2 proven principals). A booking occupies the allocations its hold had.
 */
import {
  type BookingIndexEntry,
  type BookingListQuery,
  type BookingPage,
  type BookingRecord,
  type Interval,
  isBookingCursor,
  MAX_BOOKING_PAGE,
  type Transition,
} from "../port.js";
import type { HostState } from "./host-state.js";
import { done, refused, stateRefusal } from "./lifecycle.js";

/** Writes the record (and, when given, its new index entry); the rest of what is stored stays. */
function update(host: HostState, record: BookingRecord, index?: BookingIndexEntry): BookingRecord {
  const stored = host.bookings.get(record.bookingId);
  host.putBooking({
    types: stored?.types ?? [],
    ...(stored?.index !== undefined && { index: stored.index }),
    ...(stored?.locks !== undefined && { locks: stored.locks }),
    ...((stored?.indexed === true || index !== undefined) && { indexed: true as const }),
    ...(index !== undefined && { index }),
    record,
  });
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
  host.putBooking({ ...b, record, types: h.types });
  host.holds.set(holdId, { ...h, record: { ...h.record, state: "booked", bookingId, endedAt: now } });
  host.live.delete(holdId);
  return done(record);
}

export function updateBookingPayload(
  host: HostState,
  bookingId: string,
  payload: string,
  ifPayload?: string,
  index?: BookingIndexEntry,
): Transition<BookingRecord> {
  const b = host.bookings.get(bookingId)?.record;
  if (b === undefined) return refused("not_found");
  // Compare-and-set: a concurrent update that got there first wins, and this one is told.
  if (ifPayload !== undefined && b.payload !== ifPayload) return refused("stale");
  return done(update(host, { ...b, payload }, index));
}

export function markAttendance(
  host: HostState,
  bookingId: string,
  attendance: "completed" | "no_show",
  end?: number,
): Transition<BookingRecord> {
  const b = host.bookings.get(bookingId)?.record;
  if (b === undefined) return refused("not_found");
  if (b.state !== "active") return refused("released");
  // §4.2: the end frees whatever was set aside beyond it.
  const interval =
    end !== undefined && end > b.interval.start && end < b.interval.end
      ? { start: b.interval.start, end }
      : b.interval;
  return done(update(host, { ...b, attendance, interval }));
}

/** §6/§7.2: a booking not released, not a no-show, whose end (with its buffer) has passed. */
export function isPrincipalProven(host: HostState, principal: string, now: number): boolean {
  for (const b of host.activeBookingsOverBy(principal, now)) {
    const r = b.record;
    if (r.owner.principal === principal && r.attendance !== "no_show" && r.interval.end <= now) return true;
  }
  return false;
}

/** A page newest first (HoldStore.listBookings); the cursor is the last booking's order. */
export function listBookings(host: HostState | undefined, query: BookingListQuery): BookingPage {
  checkListQuery(query);
  if (host === undefined) return { bookings: [] };
  const below = query.cursor === undefined ? Number.POSITIVE_INFINITY : Number(query.cursor);
  const out: BookingRecord[] = [];
  let last: number | undefined;
  for (const e of host.index.newestFirst(query.status, below)) {
    if (out.length >= query.limit) return { bookings: out, nextCursor: String(last) };
    last = e.score;
    const b = host.bookings.get(e.id)?.record;
    if (b !== undefined && startsIn(b, query)) out.push(b);
  }
  return { bookings: out };
}

const startsIn = (b: BookingRecord, q: BookingListQuery) =>
  (q.from === undefined || b.interval.start >= q.from) && (q.to === undefined || b.interval.start < q.to);

/** Programmer errors (the core checks what it is given before it asks). */
function checkListQuery(query: BookingListQuery): void {
  if (!Number.isSafeInteger(query.limit) || query.limit < 1 || query.limit > MAX_BOOKING_PAGE)
    throw new RangeError(`limit must be an integer from 1 to ${MAX_BOOKING_PAGE}, got ${query.limit}`);
  if (query.cursor !== undefined && !isBookingCursor(query.cursor))
    throw new RangeError(`not a booking list cursor: ${query.cursor}`);
}

export function bookingsOverlapping(
  host: HostState | undefined,
  resourceIds: readonly string[],
  range: Interval,
): BookingRecord[] {
  if (host === undefined) return [];
  const found = new Map<string, BookingRecord>();
  const wanted = new Set(resourceIds);
  for (const resourceId of wanted)
    for (const id of host.index.overlapCandidates(resourceId, range)) {
      const b = host.bookings.get(id)?.record;
      if (b === undefined || b.state !== "active" || found.has(id)) continue;
      if (b.interval.start < range.end && range.start < b.interval.end) found.set(id, b);
    }
  return [...found.values()];
}

/** Describes each booking a snapshot older than the indexes brought, once. */
export function backfillBookingIndex(
  host: HostState | undefined,
  describe: (payload: string) => BookingIndexEntry | undefined,
): number {
  if (host === undefined) return 0;
  let n = 0;
  for (const id of [...host.unindexed]) {
    const stored = host.bookings.get(id);
    host.unindexed.delete(id);
    if (stored === undefined) continue;
    const index = describe(stored.record.payload);
    host.putBooking({ ...stored, ...(index !== undefined && { index }), indexed: true });
    n++;
  }
  return n;
}
