/**
 * SchCP §5.10 Locks on both hold stores (memory, Redis, Redis Cluster): "A tentative booking
 * counts against the booker's agent cap and the new-guest pool (§7.2) like a hold", and a
 * vouchee's keeps drawing on its attester's pool (§7.5). The count is the store's, taken in the
 * step that places a hold, so a confirm that turns a hold into a tentative booking and a hold
 * racing it can never both fit under the last unit of a cap.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MemoryHoldStore } from "../../../src/holds/memory/memory-store.js";
import type { GatewayStore, HoldCaps, HoldOwner } from "../../../src/holds/port.js";
import { createRedisGatewayStore } from "../../../src/holds/redis/index.js";
import { dropPrefix, startTestRedis, type TestRedis, uniquePrefix } from "../../support/redis.js";
import { startTestRedisCluster, type TestRedisCluster } from "../../support/redis-cluster.js";
import { at, holdRequest, newHost, newId, NOW, req } from "../contract/support.js";

/** Ten bays, so the caps, not the time, decide. */
const BAYS = req(
  "bay",
  Array.from({ length: 10 }, (_, i) => [`bay-${i}`, 1] as const),
);

const owner = (agentKey: string, principal: string, attester?: string): HoldOwner => ({
  agentKey,
  principal,
  ...(attester !== undefined && { attester }),
  mandates: [],
});

async function hold(store: GatewayStore, hostId: string, who: HoldOwner, caps: HoldCaps, slot = 0) {
  return store.placeHold(
    holdRequest(hostId, { owner: who, caps, requirements: [BAYS], interval: at(slot * 60, slot * 60 + 60) }),
  );
}

/** A hold by `who` confirmed into a booking whose index status is `status`. */
async function bookAs(
  store: GatewayStore,
  hostId: string,
  who: HoldOwner,
  caps: HoldCaps,
  status: string,
  slot = 9,
): Promise<string> {
  const placed = await hold(store, hostId, who, caps, slot);
  if (!placed.ok) throw new Error(placed.error.reason);
  const begun = await store.beginConfirm(hostId, placed.value.holdId, NOW, 60_000);
  if (!begun.ok) throw new Error(begun.error.reason);
  const bookingId = newId("b");
  const done = await store.completeConfirm(
    hostId,
    placed.value.holdId,
    begun.value.fence,
    { bookingId, payload: "{}", index: { status } },
    NOW,
  );
  if (!done.ok) throw new Error(done.error.reason);
  return bookingId;
}

const reasonOf = (r: Awaited<ReturnType<typeof hold>>) => (r.ok ? "held" : r.error.reason);

function suite(name: string, make: () => Promise<{ store: GatewayStore; cleanup(): Promise<void> }>) {
  describe(`${name}: §5.10 Locks`, () => {
    let made: Awaited<ReturnType<typeof make>>;
    beforeAll(async () => {
      made = await make();
    });
    afterAll(async () => {
      await made.cleanup();
    });

    it("§5.10 a tentative booking counts against its agent's cap like a hold until it is confirmed; a confirmed one does not", async () => {
      const store = made.store;
      const hostId = newHost();
      const caps: HoldCaps = { maxActivePerAgent: 1, principalProven: true };
      const me = owner("agent-T", "principal-T");
      const bookingId = await bookAs(store, hostId, me, caps, "tentative");
      expect(reasonOf(await hold(store, hostId, me, caps, 1))).toBe("agent_limit");
      // Another agent is not affected.
      expect(reasonOf(await hold(store, hostId, owner("agent-U", "principal-U"), caps, 2))).toBe("held");
      // The last participant accepts: confirmed, the lock is gone.
      expect(
        (await store.updateBookingPayload(hostId, bookingId, "{}", undefined, { status: "confirmed" })).ok,
      ).toBe(true);
      expect(reasonOf(await hold(store, hostId, me, caps, 3))).toBe("held");
      // A booking confirmed from the start never counted.
      const other = newHost();
      await bookAs(store, other, me, caps, "confirmed");
      expect(reasonOf(await hold(store, other, me, caps, 1))).toBe("held");
    });

    it("§5.10 pending_host → tentative takes the lock; a release (decline, lapse, cancel) frees it", async () => {
      const store = made.store;
      const hostId = newHost();
      const caps: HoldCaps = { maxActivePerAgent: 1, principalProven: true };
      const me = owner("agent-P", "principal-P");
      const bookingId = await bookAs(store, hostId, me, caps, "pending_host");
      expect(reasonOf(await hold(store, hostId, me, caps, 1))).toBe("held");
      const second = newHost();
      const b2 = await bookAs(store, second, me, caps, "pending_host");
      // The host approves and a participant must still answer: tentative, locked.
      await store.updateBookingPayload(second, b2, "{}", undefined, { status: "tentative" });
      expect(reasonOf(await hold(store, second, me, caps, 1))).toBe("agent_limit");
      expect((await store.releaseBooking(second, b2, NOW)).ok).toBe(true);
      expect(reasonOf(await hold(store, second, me, caps, 2))).toBe("held");
      expect(bookingId).toBeDefined();
    });

    it("§5.10 §7.2 §7.5 a tentative booking counts against the new-guest pool, or its attester's pool", async () => {
      const store = made.store;
      const hostId = newHost();
      const unproven: HoldCaps = { maxActiveUnproven: 1, maxActivePerAttester: 1, principalProven: false };
      await bookAs(store, hostId, owner("agent-1", "new-1"), unproven, "tentative");
      expect(reasonOf(await hold(store, hostId, owner("agent-2", "new-2"), unproven, 1))).toBe(
        "new_guest_pool_full",
      );
      // A vouchee draws on its attester's pool, not the new-guest one…
      await bookAs(store, hostId, owner("agent-3", "new-3", "phonecheck"), unproven, "tentative", 8);
      expect(reasonOf(await hold(store, hostId, owner("agent-4", "new-4", "phonecheck"), unproven, 2))).toBe(
        "attester_pool_full",
      );
      // …and a proven guest draws on neither.
      const proven: HoldCaps = { ...unproven, principalProven: true };
      expect(reasonOf(await hold(store, hostId, owner("agent-5", "old-5"), proven, 3))).toBe("held");
    });

    it("§5.10 two holds racing for the agent's last unit, one of them while a hold turns into a tentative booking: exactly one wins", async () => {
      const store = made.store;
      for (let round = 0; round < 5; round++) {
        const hostId = newHost();
        const caps: HoldCaps = { maxActivePerAgent: 2, principalProven: true };
        const me = owner("agent-R", "principal-R");
        // One unit is taken by a hold now being confirmed into a tentative booking.
        const first = await hold(store, hostId, me, caps, 0);
        if (!first.ok) throw new Error(first.error.reason);
        const begun = await store.beginConfirm(hostId, first.value.holdId, NOW, 60_000);
        if (!begun.ok) throw new Error(begun.error.reason);
        const [booked, a, b] = await Promise.all([
          store.completeConfirm(
            hostId,
            first.value.holdId,
            begun.value.fence,
            { bookingId: newId("b"), payload: "{}", index: { status: "tentative" } },
            NOW,
          ),
          hold(store, hostId, me, caps, 1),
          hold(store, hostId, me, caps, 2),
        ]);
        expect(booked.ok).toBe(true);
        expect([reasonOf(a), reasonOf(b)].sort()).toEqual(["agent_limit", "held"]);
      }
    });
  });
}

suite("MemoryHoldStore", () =>
  Promise.resolve({ store: new MemoryHoldStore(), cleanup: () => Promise.resolve() }),
);

let redis: TestRedis | undefined;
let cluster: TestRedisCluster | undefined;
beforeAll(async () => {
  redis = await startTestRedis();
  cluster = await startTestRedisCluster();
}, 60_000);
afterAll(async () => {
  await redis?.stop();
  await cluster?.stop();
});

for (const [name, url] of [
  ["RedisHoldStore", () => redis?.url],
  ["RedisHoldStore on a Redis Cluster", () => cluster?.url],
] as const) {
  suite(name, async () => {
    const u = url();
    if (u === undefined) throw new Error(`no test ${name}`);
    const keyPrefix = uniquePrefix("locks");
    const store = await createRedisGatewayStore({ url: u, keyPrefix });
    return {
      store,
      cleanup: async () => {
        await dropPrefix(store.redis, keyPrefix);
        await store.close();
      },
    };
  });
}

describe("§5.10 Locks across two processes on one Redis prefix", () => {
  it("a hold in each process racing for the agent's last unit beside a tentative booking: exactly one wins", async () => {
    if (redis === undefined) throw new Error("no test Redis");
    const keyPrefix = uniquePrefix("locks-2p");
    const one = await createRedisGatewayStore({ url: redis.url, keyPrefix });
    const two = await createRedisGatewayStore({ url: redis.url, keyPrefix });
    try {
      const hostId = newHost();
      const caps: HoldCaps = { maxActivePerAgent: 2, principalProven: true };
      const me = owner("agent-2p", "principal-2p");
      await bookAs(one, hostId, me, caps, "tentative");
      const [a, b] = await Promise.all([hold(one, hostId, me, caps, 1), hold(two, hostId, me, caps, 2)]);
      expect([reasonOf(a), reasonOf(b)].sort()).toEqual(["agent_limit", "held"]);
    } finally {
      await dropPrefix(one.redis, keyPrefix);
      await one.close();
      await two.close();
    }
  });
});
