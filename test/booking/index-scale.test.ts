/**
 * The booking core's questions answered from the store's indexes, not from the newest N
 * bookings, at hosts with thousands of bookings (made fast through the store itself), on the
 * memory store and on Redis: the oldest pending booking lapses at its deadline, the operator
 * list pages through every booking exactly once, an approval link for the oldest of 12,000
 * bookings opens, and the oldest booking whose unit's time turns busy is displaced like the
 * newest (§5.8).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { confirmHold } from "../../src/edges/schcp/confirm.js";
import type { BookingDeps } from "../../src/booking/api.js";
import { storeBookingIndex } from "../../src/booking/bookings/booking-index.js";
import { bookingIndexEntry } from "../../src/booking/bookings/index-entry.js";
import { encodeBookingState, type BookingState } from "../../src/booking/bookings/state.js";
import { loadBooking } from "../../src/booking/bookings/store.js";
import { RedisCalendarStateStore } from "../../src/booking/calendar/state.js";
import { MemoryLinkUseStore } from "../../src/booking/approval/links.js";
import { expireOverdue } from "../../src/booking/operator/deadlines.js";
import { pageBookings } from "../../src/booking/operator/list.js";
import { approvalRoutes } from "../../src/gateway/runtime/calendar-hosts.js";
import { MemoryHoldStore } from "../../src/holds/memory/memory-store.js";
import type { GatewayStore, Interval } from "../../src/holds/port.js";
import { createRedisGatewayStore, type RedisHoldStore } from "../../src/holds/redis/index.js";
import { dropPrefix, startTestRedis, type TestRedis, uniquePrefix } from "../support/redis.js";
import {
  APPROVAL,
  HOUR,
  INSTANT,
  NOW,
  SLOT,
  callerFor,
  makeWorld,
  newParty,
  placeTestHold,
  unwrap,
} from "./bookings/world.js";
import { busy, displaceWorld, tue } from "./calendar/support/displace-world.js";

/** A real booking's state, made through the core: the template the filled bookings copy. */
async function templateState(hostId: string): Promise<BookingState> {
  const world = makeWorld();
  const caller = await callerFor(world, newParty(), { hostId });
  const hold = await placeTestHold(world, world.host(hostId), caller, { resource: "bay-1" });
  const r = unwrap(
    await confirmHold(world.deps, hostId, caller, hold.record.holdId, {
      idempotency_key: "c",
      offer_sha256: hold.offerSha256,
    }),
  );
  const loaded = await loadBooking(world.store, hostId, r.body.booking.booking_id);
  if (loaded === undefined) throw new Error("no template booking");
  return loaded.state;
}

let filled = 0;

/**
 * `n` bookings through the store (hold, confirm, record), oldest first, each with the state
 * `state(i)` gives and its index entry, on `resourceId` at `interval(i)`. Returns their ids.
 */
async function fill(
  store: GatewayStore,
  hostId: string,
  n: number,
  resource: { type: string; id: string },
  interval: (i: number) => Interval,
  state: (i: number, bookingId: string, holdId: string) => BookingState,
): Promise<string[]> {
  const ids: string[] = [];
  const run = `${++filled}`;
  const one = async (i: number) => {
    const holdId = `h-fill-${run}-${i}`;
    const bookingId = `b-fill-${run}-${i}`;
    const placed = await store.placeHold({
      hostId,
      holdId,
      serviceId: "svc",
      interval: interval(i),
      requirements: [{ type: resource.type, candidates: [{ id: resource.id, capacity: 1 }], units: 1 }],
      ttlMs: HOUR,
      now: NOW,
      owner: { agentKey: "agent-fill", principal: null, mandates: [] },
      caps: { principalProven: true },
      payload: "{}",
    });
    if (!placed.ok) throw new Error(`fill ${i}: ${placed.error.reason}`);
    const begun = await store.beginConfirm(hostId, holdId, NOW, HOUR);
    if (!begun.ok) throw new Error(`fill ${i}: ${begun.error.reason}`);
    const s = state(i, bookingId, holdId);
    const done = await store.completeConfirm(
      hostId,
      holdId,
      begun.value.fence,
      { bookingId, payload: encodeBookingState(s), index: bookingIndexEntry(s) },
      // Creation order is the fill order.
      NOW + i,
    );
    if (!done.ok) throw new Error(`fill ${i}: ${done.error.reason}`);
    ids[i] = bookingId;
  };
  // In order, a batch at a time (each batch in flight at once: Redis pipelines it).
  for (let from = 0; from < n; from += 200) {
    const batch: Promise<void>[] = [];
    for (let i = from; i < Math.min(n, from + 200); i++) batch.push(one(i));
    await Promise.all(batch);
  }
  return ids;
}

const hourly = (i: number): Interval => ({ start: SLOT + i * HOUR, end: SLOT + i * HOUR + 30 * 60_000 });

function clone(t: BookingState, i: number, bookingId: string, holdId: string, over: Partial<BookingState>) {
  const { start, end } = hourly(i);
  return { ...t, bookingId, holdId, upstreamId: `up-${i}`, start, end, ...over } as BookingState;
}

function suite(
  name: string,
  open: () => Promise<{ store: GatewayStore; redis?: RedisHoldStore; prefix?: string }>,
) {
  describe(`booking indexes at scale: ${name}`, () => {
    it("the operator list pages through 3,000 bookings exactly once; a pending booking older than 600 newer ones lapses at its deadline", async () => {
      const { store } = await open();
      const world = makeWorld();
      const deps: BookingDeps = { ...world.deps, store, bookingIndex: storeBookingIndex(store) };
      const t = await templateState(APPROVAL);
      const ids = await fill(store, APPROVAL, 3_000, { type: "bay", id: "bay-1" }, hourly, (i, b, h) =>
        i === 0
          ? clone(t, i, b, h, { status: "pending_host", approvalBy: NOW + HOUR, answer: undefined })
          : clone(t, i, b, h, {
              status: "confirmed",
              approvalBy: undefined,
              answer: { by: "host", at: NOW },
            }),
      );

      const seen: string[] = [];
      let cursor: string | undefined;
      let pages = 0;
      do {
        const page = unwrap(
          await pageBookings(deps, APPROVAL, { limit: 500, ...(cursor !== undefined && { cursor }) }),
        );
        seen.push(...page.bookings.map((b) => b.bookingId));
        cursor = page.nextCursor;
        pages++;
      } while (cursor !== undefined);
      expect(pages).toBe(6);
      expect(seen).toEqual([...ids].reverse());
      const pending = unwrap(await pageBookings(deps, APPROVAL, { status: "pending_host" }));
      expect(pending.bookings.map((b) => b.bookingId)).toEqual([ids[0]]);

      // 2,999 newer bookings, well past the 600 the runner reads a run.
      expect((await expireOverdue(deps, APPROVAL)).expired).toEqual([]);
      world.clock.advance(2 * HOUR);
      expect((await expireOverdue(deps, APPROVAL)).expired).toEqual([ids[0]]);
      expect((await store.getBooking(APPROVAL, ids[0] as string))?.state).toBe("released");
      expect((await loadBooking(store, APPROVAL, ids[0] as string))?.state.status).toBe("expired");
      expect(await store.bookingsDue(APPROVAL, world.clock.now(), 10)).toEqual([]);
    });

    it("due bookings the upstream will not cancel do not hold back the ones after them", async () => {
      const { store } = await open();
      const world = makeWorld();
      const deps: BookingDeps = { ...world.deps, store, bookingIndex: storeBookingIndex(store) };
      const t = await templateState(APPROVAL);
      // Five pending bookings due in creation order; the upstream refuses to cancel the first four.
      const ids = await fill(store, APPROVAL, 5, { type: "bay", id: "bay-1" }, hourly, (i, b, h) =>
        clone(t, i, b, h, { status: "pending_host", approvalBy: NOW + HOUR + i, answer: undefined }),
      );
      const host = deps.hosts.get(APPROVAL)!;
      const stuck = new Set(["up-0", "up-1", "up-2", "up-3"]);
      const cancel = host.connector.bookings.cancel.bind(host.connector.bookings);
      Object.assign(host.connector.bookings, {
        cancel: (upstreamId: string, ...rest: [string | undefined, "guest" | "host" | "system"]) =>
          stuck.has(upstreamId)
            ? Promise.resolve({ ok: false, error: { code: "unavailable", message: "the platform is down" } })
            : cancel(upstreamId, ...rest),
      });
      world.clock.advance(2 * HOUR);
      // Two a page: the first two pages are all refusals; the third reaches the fifth booking.
      const report = await expireOverdue(deps, APPROVAL, 2);
      expect(report.expired).toEqual([ids[4]]);
      expect(await store.bookingsDue(APPROVAL, world.clock.now(), 10)).toEqual(ids.slice(0, 4));
      // Once the platform answers, the next run settles the rest.
      stuck.clear();
      expect((await expireOverdue(deps, APPROVAL, 2)).expired).toEqual(ids.slice(0, 4));
    });

    it("an approval link for the oldest of 12,000 bookings opens (the booking found by its upstream id)", async () => {
      const { store } = await open();
      const world = makeWorld();
      const deps: BookingDeps = { ...world.deps, store, bookingIndex: storeBookingIndex(store) };
      const t = await templateState(APPROVAL);
      const ids = await fill(store, INSTANT, 12_000, { type: "bay", id: "bay-1" }, hourly, (i, b, h) =>
        clone(t, i, b, h, { hostId: INSTANT, status: i === 0 ? "pending_host" : "confirmed" }),
      );
      const routes = approvalRoutes({
        deps,
        service: {
          approve: () => Promise.resolve({ ok: true }),
          decline: () => Promise.resolve({ ok: true }),
        },
        secret: new Uint8Array(32),
        uses: new MemoryLinkUseStore(),
      });
      const view = await routes.read(INSTANT, "up-0");
      expect(view).toMatchObject({ hostName: "Maple Street Auto", status: "pending_host" });
      expect(await routes.read(INSTANT, "up-11999")).toMatchObject({ status: "confirmed" });
      expect(await routes.read(INSTANT, "up-none")).toBeUndefined();
      expect(ids).toHaveLength(12_000);
    });

    it("the oldest booking whose chair turns busy is displaced like the newest, 3,000 bookings between them", async () => {
      const { store, redis, prefix } = await open();
      const w = displaceWorld({
        mapped: ["chair-1"],
        store,
        ...(redis !== undefined && { state: new RedisCalendarStateStore(redis.redis, prefix as string) }),
        hostId: `cal-${++filled}`,
      });
      await w.start();
      const oldest = await w.book(tue("10:00"));
      const t = (await w.bookingState(oldest.bookingId)).state;
      // Far past the sync's horizon, so only the two bookings below are ever in conflict.
      const later = (i: number): Interval => ({
        start: tue("10:00") + 90 * 24 * HOUR + i * HOUR,
        end: tue("10:00") + 90 * 24 * HOUR + i * HOUR + HOUR,
      });
      await fill(store, w.hostId, 3_000, { type: "chair", id: "chair-1" }, later, (i, b, h) => ({
        ...t,
        bookingId: b,
        holdId: h,
        upstreamId: `up-${i}`,
        start: later(i).start,
        end: later(i).end - 15 * 60_000,
      }));
      const newest = await w.book(tue("12:00"));
      expect((await w.bookingState(newest.bookingId)).record.allocations[0]?.resourceId).toBe("chair-1");

      w.calendar("chair-1-cal").put(busy("walk-in", "09:30", "13:30"));
      const report = await w.sync();
      const outcome = (id: string) => report.conflicts?.find((c) => c.bookingId === id);
      expect(outcome(oldest.bookingId)).toMatchObject({ outcome: "moved", movedTo: "chair-2" });
      expect(outcome(newest.bookingId)).toMatchObject({ outcome: "moved", movedTo: "chair-2" });
      expect(report.conflicts?.filter((c) => c.outcome === "hold")).toEqual([]);
      expect((await w.bookingState(oldest.bookingId)).record.allocations[0]?.resourceId).toBe("chair-2");
    });
  });
}

suite("memory", () => Promise.resolve({ store: new MemoryHoldStore() }));

let redis: TestRedis | undefined;
const opened: Array<{ store: RedisHoldStore; prefix: string }> = [];
beforeAll(async () => {
  redis = await startTestRedis();
});
afterAll(async () => {
  for (const { store, prefix } of opened) {
    await dropPrefix(store.redis, prefix);
    await store.close();
  }
  await redis?.stop();
});

suite("Redis", async () => {
  if (redis === undefined) throw new Error("no test Redis");
  const prefix = uniquePrefix("scale");
  const store = await createRedisGatewayStore({ url: redis.url, keyPrefix: prefix });
  opened.push({ store, prefix });
  return { store, redis: store, prefix };
});
