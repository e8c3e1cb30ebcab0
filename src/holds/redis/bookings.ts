/**
 * RedisHoldStore's bookings (SchCP §5.6 cancel, §5.7 change acceptance, §6 attendance,
 * §7.2 proven principals), imported busy time (§10) and mandate counts (§3.3). A booking
 * occupies the allocations of the hold it was confirmed from (or moved to).
 */
import type { Interval } from "../../calendar/index.js";
import type { BookingRecord, Transition } from "../port.js";
import { bookingFromFields, fieldsOf, holdFromFields, int } from "./codec.js";
import { checkInterval, decode, type StoreContext, transition } from "./context.js";

export async function getBooking(
  ctx: StoreContext,
  hostId: string,
  bookingId: string,
): Promise<BookingRecord | undefined> {
  const fields = await ctx.call("getBooking", () => ctx.redis.hgetall(ctx.keys.booking(hostId, bookingId)));
  if (Object.keys(fields).length === 0) return undefined;
  return decode("getBooking", () => bookingFromFields(hostId, bookingId, fields));
}

/** Newest first: the index complete-confirm.lua writes with each booking (score = creation time). */
export async function listBookingIds(
  ctx: StoreContext,
  hostId: string,
  limit: number,
): Promise<readonly string[]> {
  if (limit <= 0) return [];
  return ctx.call("listBookingIds", () => ctx.redis.zrevrange(ctx.keys.bookingIndex(hostId), 0, limit - 1));
}

function bookingTransition(hostId: string, bookingId: string, reply: unknown[]): Transition<BookingRecord> {
  return transition(reply, (r) => bookingFromFields(hostId, bookingId, fieldsOf(r[2])));
}

export async function releaseBooking(
  ctx: StoreContext,
  hostId: string,
  bookingId: string,
  now: number,
): Promise<Transition<BookingRecord>> {
  const k = ctx.keys;
  const reply = await ctx.list(
    "release-booking",
    [k.booking(hostId, bookingId)],
    [k.host(hostId), bookingId, now],
  );
  return bookingTransition(hostId, bookingId, reply);
}

export async function moveBookingToHold(
  ctx: StoreContext,
  hostId: string,
  bookingId: string,
  holdId: string,
  now: number,
): Promise<Transition<BookingRecord>> {
  const k = ctx.keys;
  const reply = await ctx.list(
    "move-booking",
    [k.booking(hostId, bookingId), k.hold(hostId, holdId)],
    [k.host(hostId), bookingId, holdId, now, ctx.settings.retentionMs],
  );
  return transition(
    reply,
    (r) => bookingFromFields(hostId, bookingId, fieldsOf(r[2])),
    (f) => holdFromFields(hostId, holdId, f, now),
  );
}

/** One field of an existing booking: its payload, or its attendance (active bookings only). */
export async function updateBooking(
  ctx: StoreContext,
  hostId: string,
  bookingId: string,
  field: "pl" | "att",
  value: string,
  ifPayload?: string,
): Promise<Transition<BookingRecord>> {
  const args = ifPayload === undefined ? [field, value] : [field, value, ifPayload];
  const reply = await ctx.list("update-booking", [ctx.keys.booking(hostId, bookingId)], args);
  return bookingTransition(hostId, bookingId, reply);
}

export async function isPrincipalProven(
  ctx: StoreContext,
  hostId: string,
  principal: string,
  now: number,
): Promise<boolean> {
  const k = ctx.keys;
  const reply = await ctx.script(
    "is-proven",
    [k.principalBookings(hostId, principal)],
    [k.host(hostId), now],
  );
  return decode("isPrincipalProven", () => int(reply) === 1);
}

export async function replaceBusy(
  ctx: StoreContext,
  hostId: string,
  resourceId: string,
  source: string,
  busy: readonly Interval[],
): Promise<void> {
  for (const interval of busy) checkInterval(interval);
  const k = ctx.keys;
  await ctx.script(
    "replace-busy",
    [k.occupancy(hostId, resourceId), k.busy(hostId, resourceId), `${k.host(hostId)}occlen`],
    [k.host(hostId), resourceId, source, JSON.stringify(busy.map((i) => [i.start, i.end]))],
  );
}

export async function countForMandate(
  ctx: StoreContext,
  hostId: string,
  rootIss: string,
  jti: string,
  excludeHoldId?: string,
): Promise<number> {
  const reply = await ctx.script(
    "count-mandate",
    [ctx.keys.mandate(hostId, rootIss, jti)],
    [excludeHoldId ?? ""],
  );
  return decode("countForMandate", () => int(reply));
}
