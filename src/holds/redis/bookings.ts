/**
 * RedisHoldStore's bookings (SchCP §5.6 cancel, §5.7 change acceptance, §6 attendance,
 * §7.2 proven principals), imported busy time (§10) and mandate counts (§3.3). A booking
 * occupies the allocations of the hold it was confirmed from (or moved to).
 */
import type { Interval } from "../../calendar/index.js";
import {
  type BookingIndexEntry,
  type BookingListQuery,
  type BookingPage,
  type BookingRecord,
  isBookingCursor,
  MAX_BOOKING_PAGE,
  type Transition,
} from "../port.js";
import { bookingFromFields, fieldsOf, holdFromFields, int, text } from "./codec.js";
import { unavailable } from "./unavailable.js";
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
  index?: BookingIndexEntry,
  end?: number,
): Promise<Transition<BookingRecord>> {
  const k = ctx.keys;
  if (end !== undefined && !Number.isSafeInteger(end))
    throw new RangeError(`an end must be integer epoch ms, got ${end}`);
  const reply = await ctx.list(
    "update-booking",
    [k.booking(hostId, bookingId), k.bookingIndexPart(hostId, "meta")],
    [
      k.host(hostId),
      field,
      value,
      ifPayload === undefined ? "" : "1",
      ifPayload ?? "",
      entryJson(index),
      end === undefined ? "" : String(end),
    ],
  );
  return bookingTransition(hostId, bookingId, reply);
}

/** An index entry as the scripts read it (lua/booking-index.lua): {s, d?, k?}; "" for none. */
export function entryJson(index: BookingIndexEntry | undefined): string {
  if (index === undefined) return "";
  if (index.status === "") throw new RangeError("an index entry needs a status");
  if (index.deadline !== undefined && !Number.isSafeInteger(index.deadline))
    throw new RangeError(`an index deadline must be integer epoch ms, got ${index.deadline}`);
  return JSON.stringify({
    s: index.status,
    ...(index.deadline !== undefined && { d: index.deadline }),
    ...(index.keys !== undefined && index.keys.length > 0 && { k: index.keys }),
  });
}

/** Filtered pages read at most this many index entries per call. */
const LIST_BUDGET = 2_000;

export async function listBookings(
  ctx: StoreContext,
  hostId: string,
  query: BookingListQuery,
): Promise<BookingPage> {
  checkListQuery(query);
  const k = ctx.keys;
  const index = k.bookingIndexPart(hostId, query.status === undefined ? "all" : `st:${query.status}`);
  const bound = (n: number | undefined) => (n === undefined ? "" : String(n));
  const reply = await ctx.list(
    "list-bookings",
    [index],
    [k.host(hostId), query.cursor ?? "", query.limit, bound(query.from), bound(query.to), LIST_BUDGET],
  );
  return decode("listBookings", () => {
    const next = text(reply[0]);
    return { bookings: recordsOf(hostId, reply, 1), ...(next !== "" && { nextCursor: next }) };
  });
}

function checkListQuery(query: BookingListQuery): void {
  if (!Number.isSafeInteger(query.limit) || query.limit < 1 || query.limit > MAX_BOOKING_PAGE)
    throw new RangeError(`limit must be an integer from 1 to ${MAX_BOOKING_PAGE}, got ${query.limit}`);
  if (query.cursor !== undefined && !isBookingCursor(query.cursor))
    throw new RangeError(`not a booking list cursor: ${query.cursor}`);
  for (const bound of [query.from, query.to])
    if (bound !== undefined && !Number.isSafeInteger(bound))
      throw new RangeError(`a time bound must be integer epoch ms, got ${bound}`);
}

/** {id, fields, id, fields, …} from `from` on. */
function recordsOf(hostId: string, reply: unknown[], from: number): BookingRecord[] {
  const out: BookingRecord[] = [];
  for (let i = from; i + 1 < reply.length; i += 2) {
    const id = text(reply[i]);
    out.push(bookingFromFields(hostId, id, fieldsOf(reply[i + 1])));
  }
  return out;
}

export async function bookingsOverlapping(
  ctx: StoreContext,
  hostId: string,
  resourceIds: readonly string[],
  range: Interval,
): Promise<readonly BookingRecord[]> {
  checkInterval(range);
  if (resourceIds.length === 0) return [];
  const k = ctx.keys;
  const reply = await ctx.list(
    "bookings-overlapping",
    [k.bookingIndexPart(hostId, "meta")],
    [k.host(hostId), range.start, range.end, ...new Set(resourceIds)],
  );
  return decode("bookingsOverlapping", () => recordsOf(hostId, reply, 0));
}

export async function bookingsDue(
  ctx: StoreContext,
  hostId: string,
  now: number,
  limit: number,
  offset = 0,
): Promise<readonly string[]> {
  if (limit <= 0) return [];
  const key = ctx.keys.bookingIndexPart(hostId, "due");
  const skip = Math.max(0, Math.floor(offset));
  return ctx.call("bookingsDue", () => ctx.redis.zrangebyscore(key, "-inf", now, "LIMIT", skip, limit));
}

export async function bookingIdByKey(
  ctx: StoreContext,
  hostId: string,
  key: string,
): Promise<string | undefined> {
  const id = await ctx.call("bookingIdByKey", () =>
    ctx.redis.hget(ctx.keys.bookingIndexPart(hostId, "key"), key),
  );
  return id ?? undefined;
}

const BACKFILL_BATCH = 500;

/**
 * Walks the creation index every booking has been in since bookings were first indexed
 * (booking-index), oldest first, and hands each booking without an order to index-backfill.lua
 * with the core's entry for its payload. New bookings go to the end of that index, so none is
 * skipped. Done: bx:meta v = 1.
 */
export async function backfillBookingIndex(
  ctx: StoreContext,
  hostId: string,
  describe: (payload: string) => BookingIndexEntry | undefined,
): Promise<number> {
  const k = ctx.keys;
  const meta = k.bookingIndexPart(hostId, "meta");
  if ((await ctx.call("backfillBookingIndex", () => ctx.redis.hget(meta, "v"))) === "1") return 0;
  let indexed = 0;
  for (let at = 0; ; at += BACKFILL_BATCH) {
    const ids = await ctx.call("backfillBookingIndex", () =>
      ctx.redis.zrange(k.bookingIndex(hostId), String(at), String(at + BACKFILL_BATCH - 1)),
    );
    if (ids.length === 0) break;
    // A booking whose payload changed between the read and the script is read again.
    for (let attempt = 0; attempt < 5; attempt++) {
      const read = await ctx.call("backfillBookingIndex", async () => {
        const pipeline = ctx.redis.pipeline();
        for (const id of ids) pipeline.hmget(k.booking(hostId, id), "ox", "pl");
        return (await pipeline.exec()) ?? [];
      });
      const args: string[] = [k.host(hostId)];
      read.forEach(([error, fields], i) => {
        if (error !== null) throw unavailable("backfillBookingIndex", error);
        const [ox, pl] = fields as [string | null, string | null];
        if (ox !== null || pl === null) return;
        args.push(ids[i] as string, pl, entryJson(describe(pl)));
      });
      if (args.length === 1) break;
      const reply = await ctx.list("index-backfill", [meta], args);
      indexed += decode("backfillBookingIndex", () => int(reply[0]));
      if (decode("backfillBookingIndex", () => int(reply[1])) === 0) break;
    }
  }
  await ctx.call("backfillBookingIndex", () => ctx.redis.hset(meta, "v", "1"));
  return indexed;
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
