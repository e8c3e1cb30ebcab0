/**
 * RedisHoldStore's holds (SchCP §4.1, §5.2–§5.4, §7): placing one (a single EVALSHA of
 * place-hold.lua), reading one, and its lifecycle — release, the fenced and leased
 * confirming state, the reconciler's claim, the sweeper and the expiry events.
 *
 * Expiry events are a Redis list taken with LPOP: each event goes to exactly one caller
 * of takeExpiryEvents, oldest first (no duplicates across consumers). Delivery is at most
 * once: a consumer that crashes after taking events loses them, so it should act on them
 * promptly (they feed webhooks and reputation, which tolerate a rare loss).
 */
import type {
  BookingRecord,
  ExpiryEvent,
  HoldOutcome,
  HoldRecord,
  HoldRefusalReason,
  PlaceHoldRequest,
  NewBooking,
  ReleaseResult,
  Transition,
} from "../port.js";
import {
  allocationsOf,
  bookingFromFields,
  type Fields,
  fieldsOf,
  holdFromFields,
  int,
  MalformedReplyError,
  storedOwner,
  text,
} from "./codec.js";
import { unavailable } from "./unavailable.js";
import { entryJson } from "./bookings.js";
import { checkTimes, decode, type StoreContext, transition } from "./context.js";

const REFUSALS: ReadonlySet<string> = new Set<HoldRefusalReason>([
  "slot_taken",
  "walk_in_reserve",
  "agent_limit",
  "new_guest_pool_full",
  "attester_pool_full",
  "mandate_limit",
  "hold_id_in_use",
  "not_freed",
]);

/** The hot path: one EVALSHA, no other round trip. */
export async function placeHold(ctx: StoreContext, request: PlaceHoldRequest): Promise<HoldOutcome> {
  checkTimes(request.interval, request.now, request.ttlMs);
  const { keys, args } = ctx.placeArgs.build(request, ctx.settings.retentionMs);
  let reply: unknown;
  try {
    reply = await ctx.runner.run("place-hold", keys, args);
  } catch (error) {
    throw unavailable("placeHold", error);
  }
  return decode("placeHold", () => placeOutcome(request, text(reply)));
}

/** place-hold.lua's one-string reply (see its header). */
function placeOutcome(request: PlaceHoldRequest, reply: string): HoldOutcome {
  if (reply.startsWith("ok|")) {
    // The rest of the record is what was asked for, as place-hold.lua stored it.
    const hold: HoldRecord = {
      hostId: request.hostId,
      holdId: request.holdId,
      serviceId: request.serviceId,
      interval: { start: request.interval.start, end: request.interval.end },
      state: "held",
      createdAt: request.now,
      expiresAt: request.now + request.ttlMs,
      ttlMs: request.ttlMs,
      owner: storedOwner(request.owner),
      allocations: allocationsOf(reply.slice(3)),
      payload: request.payload,
    };
    return { ok: true, value: hold };
  }
  const [status, reason, alternatives, ...basis] = reply.split("|");
  if (status !== "no" || reason === undefined || !REFUSALS.has(reason) || alternatives === undefined) {
    throw new MalformedReplyError(`unreadable placeHold reply ${reply.slice(0, 80)}`);
  }
  const basisJson = basis.join("|");
  return {
    ok: false,
    error: {
      reason: reason as HoldRefusalReason,
      ...(basisJson === "" ? {} : { basis: JSON.parse(basisJson) as Record<string, string | number> }),
      ...(alternatives === "" ? {} : { alternatives: alternatives.split(",").map(int) }),
    },
  };
}

export async function getHold(
  ctx: StoreContext,
  hostId: string,
  holdId: string,
  now: number,
): Promise<HoldRecord | undefined> {
  const fields = await ctx.call("getHold", () => ctx.redis.hgetall(ctx.keys.hold(hostId, holdId)));
  if (Object.keys(fields).length === 0) return undefined;
  return decode("getHold", () => holdFromFields(hostId, holdId, fields, now));
}

export async function releaseHold(
  ctx: StoreContext,
  hostId: string,
  holdId: string,
  now: number,
): Promise<Transition<ReleaseResult>> {
  const k = ctx.keys;
  const reply = await ctx.list(
    "release-hold",
    [k.hold(hostId, holdId), k.holdExpiry(hostId), k.events(hostId)],
    [k.host(hostId), holdId, now, ctx.settings.retentionMs],
  );
  const read = (f: Fields): HoldRecord => holdFromFields(hostId, holdId, f, now);
  return transition(
    reply,
    (r) => ({ hold: read(fieldsOf(r[2])), changed: int(r[3]) === 1, countsAsExpiry: int(r[4]) === 1 }),
    read,
  );
}

export async function beginConfirm(
  ctx: StoreContext,
  hostId: string,
  holdId: string,
  now: number,
  leaseMs: number,
): Promise<Transition<{ hold: HoldRecord; fence: number }>> {
  const k = ctx.keys;
  const reply = await ctx.list(
    "begin-confirm",
    [k.hold(hostId, holdId), k.holdExpiry(hostId), k.lease(hostId)],
    [k.host(hostId), holdId, now, now + leaseMs, ctx.settings.retentionMs],
  );
  const read = (f: Fields): HoldRecord => holdFromFields(hostId, holdId, f, now);
  return transition(reply, (r) => ({ hold: read(fieldsOf(r[2])), fence: int(r[3]) }), read);
}

export async function completeConfirm(
  ctx: StoreContext,
  hostId: string,
  holdId: string,
  fence: number,
  booking: NewBooking,
  now: number,
): Promise<Transition<BookingRecord>> {
  const k = ctx.keys;
  const reply = await ctx.list(
    "complete-confirm",
    [
      k.hold(hostId, holdId),
      k.booking(hostId, booking.bookingId),
      k.lease(hostId),
      k.bookingIndex(hostId),
      k.bookingIndexPart(hostId, "meta"),
    ],
    [
      k.host(hostId),
      holdId,
      fence,
      booking.bookingId,
      now,
      ctx.settings.retentionMs,
      booking.payload,
      entryJson(booking.index),
    ],
  );
  return transition(
    reply,
    (r) => bookingFromFields(hostId, booking.bookingId, fieldsOf(r[2])),
    (f) => holdFromFields(hostId, holdId, f, now),
  );
}

export async function abortConfirm(
  ctx: StoreContext,
  hostId: string,
  holdId: string,
  fence: number,
  disposition: "release" | "held",
  now: number,
): Promise<Transition<HoldRecord>> {
  const k = ctx.keys;
  const reply = await ctx.list(
    "abort-confirm",
    [k.hold(hostId, holdId), k.holdExpiry(hostId), k.lease(hostId)],
    [k.host(hostId), holdId, fence, disposition, now, ctx.settings.retentionMs],
  );
  const read = (f: Fields): HoldRecord => holdFromFields(hostId, holdId, f, now);
  return transition(reply, (r) => read(fieldsOf(r[2])), read);
}

export async function claimStuckConfirming(
  ctx: StoreContext,
  hostId: string,
  now: number,
  leaseMs: number,
  limit: number,
): Promise<ReadonlyArray<{ hold: HoldRecord; fence: number }>> {
  const k = ctx.keys;
  const reply = await ctx.list("claim-stuck", [k.lease(hostId)], [k.host(hostId), now, now + leaseMs, limit]);
  return decode("claimStuckConfirming", () => {
    const out: Array<{ hold: HoldRecord; fence: number }> = [];
    for (let i = 0; i + 2 < reply.length; i += 3) {
      const holdId = text(reply[i]);
      out.push({
        hold: holdFromFields(hostId, holdId, fieldsOf(reply[i + 1]), now),
        fence: int(reply[i + 2]),
      });
    }
    return out;
  });
}

export async function sweepExpired(
  ctx: StoreContext,
  hostId: string,
  now: number,
  limit: number,
): Promise<number> {
  const k = ctx.keys;
  const reply = await ctx.script(
    "sweep",
    [k.holdExpiry(hostId), k.events(hostId), `${k.host(hostId)}occlen`],
    [k.host(hostId), now, limit, ctx.settings.retentionMs, now - ctx.settings.pruneAfterMs],
  );
  return decode("sweepExpired", () => int(reply));
}

export async function takeExpiryEvents(
  ctx: StoreContext,
  hostId: string,
  limit: number,
): Promise<readonly ExpiryEvent[]> {
  if (limit <= 0) return [];
  const taken = await ctx.call("takeExpiryEvents", () => ctx.redis.lpop(ctx.keys.events(hostId), limit));
  return decode("takeExpiryEvents", () =>
    (taken ?? []).map((json) => {
      const e = JSON.parse(json) as Omit<ExpiryEvent, "hostId">;
      return { hostId, holdId: e.holdId, owner: e.owner, expiredAt: e.expiredAt };
    }),
  );
}
