/**
 * Bookings a store kept before it had the booking indexes (an upgraded deployment): one
 * backfillBookingIndex per host indexes them all, in their creation order, with the core's
 * entry for each payload; a second call is one read that does nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MemoryHoldStore } from "../../src/holds/memory/memory-store.js";
import type { BookingIndexEntry, GatewayStore } from "../../src/holds/port.js";
import { createRedisGatewayStore, type RedisHoldStore } from "../../src/holds/redis/index.js";
import { dropPrefix, startTestRedis, type TestRedis, uniquePrefix } from "../support/redis.js";
import { bookIndexed } from "./contract/booking-indexes.contract.js";
import { at, holdRequest, newHost, NOW } from "./contract/support.js";

const payload = (i: number) =>
  JSON.stringify({ status: i % 3 === 0 ? "pending_host" : "confirmed", up: `ev-${i}` });
const describePayload = (p: string): BookingIndexEntry => {
  const { status, up } = JSON.parse(p) as { status: string; up: string };
  return { status, keys: [`upstream:${up}`], ...(status === "pending_host" && { deadline: NOW }) };
};

/** Makes `n` bookings (no index entries given, as the old confirm wrote them); ids oldest first. */
async function oldBookings(store: GatewayStore, hostId: string, n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++)
    ids.push(
      await bookIndexed(
        store,
        holdRequest(hostId, { interval: at(i * 60, i * 60 + 30), now: NOW + i }),
        undefined,
        payload(i),
      ),
    );
  return ids;
}

async function walk(store: GatewayStore, hostId: string, status?: string): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await store.listBookings(hostId, {
      limit: 100,
      ...(status !== undefined && { status }),
      ...(cursor !== undefined && { cursor }),
    });
    ids.push(...page.bookings.map((b) => b.bookingId));
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return ids;
}

async function expectBackfilled(store: GatewayStore, hostId: string, ids: string[]) {
  expect(await walk(store, hostId, "pending_host")).toEqual([]);
  expect(await store.bookingIdByKey(hostId, "upstream:ev-0")).toBeUndefined();
  expect(await store.backfillBookingIndex(hostId, describePayload)).toBe(ids.length);
  const pending = ids.filter((_, i) => i % 3 === 0).reverse();
  expect(await walk(store, hostId, "pending_host")).toEqual(pending);
  expect(await walk(store, hostId)).toEqual([...ids].reverse());
  expect(await store.bookingIdByKey(hostId, "upstream:ev-0")).toBe(ids[0]);
  expect(await store.bookingsDue(hostId, NOW, 10_000)).toHaveLength(pending.length);
  const [first] = await store.bookingsOverlapping(hostId, ["bay-1"], at(0, 30));
  expect(first?.bookingId).toBe(ids[0]);
  // Done once: the second call indexes nothing.
  expect(await store.backfillBookingIndex(hostId, describePayload)).toBe(0);
}

describe("booking index backfill", () => {
  it("memory: a snapshot taken before the indexes", async () => {
    const hostId = newHost();
    const before = new MemoryHoldStore();
    const ids = await oldBookings(before, hostId, 7);
    const snapshot = before.exportState();
    // The snapshot as the store before the indexes wrote it: no entry, not marked indexed.
    const hosts = new Map(
      [...snapshot.hosts].map(([id, h]) => [
        id,
        {
          ...h,
          bookings: new Map([...h.bookings].map(([b, s]) => [b, { record: s.record, types: s.types }])),
        },
      ]),
    );
    const after = new MemoryHoldStore();
    after.importState({ ...snapshot, hosts });
    await expectBackfilled(after, hostId, ids);
  });

  describe("Redis", () => {
    let redis: TestRedis | undefined;
    let store: RedisHoldStore | undefined;
    let prefix = "";
    beforeAll(async () => {
      redis = await startTestRedis();
      prefix = uniquePrefix("backfill");
      store = await createRedisGatewayStore({ url: redis.url, keyPrefix: prefix });
    });
    afterAll(async () => {
      if (store !== undefined) {
        await dropPrefix(store.redis, prefix);
        await store.close();
      }
      await redis?.stop();
    });

    it("bookings written before the indexes (only the creation index and the booking hashes)", async () => {
      if (store === undefined) throw new Error("no store");
      const hostId = newHost();
      const ids = await oldBookings(store, hostId, 1200);
      // Back to the layout before the indexes: no bx:* keys, no index fields in the hashes.
      const base = store.keys.host(hostId);
      const keys = await store.redis.keys(`${base.replace(/[{}*?[\]]/g, "\\$&")}bx:*`);
      expect(keys.length).toBeGreaterThan(0);
      await store.redis.del(...keys);
      for (const id of ids) await store.redis.hdel(store.keys.booking(hostId, id), "ox", "xs", "xd", "xk");
      await expectBackfilled(store, hostId, ids);
    });
  });
});
