/**
 * The hold store's waitlist (SchCP §5.9) on both stores (Redis alone and on a Cluster): joining under max_entries_per_agent
 * and max_bookings, the line, and offerFreed, which frees a booking's time and places the first
 * waiting entry's offer in one atomic step.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MemoryHoldStore } from "../../../src/holds/memory/memory-store.js";
import type { GatewayStore, MandateCount } from "../../../src/holds/port.js";
import { createRedisGatewayStore } from "../../../src/holds/redis/index.js";
import type { WaitlistJoin } from "../../../src/holds/waitlist-port.js";
import { dropPrefix, startTestRedis, type TestRedis, uniquePrefix } from "../../support/redis.js";
import { startTestRedisCluster, type TestRedisCluster } from "../../support/redis-cluster.js";
import { at, BAY1, HOUR, holdRequest, newHost, newId, NOW, T0, TTL } from "../contract/support.js";

const join = (hostId: string, over: Partial<WaitlistJoin> = {}): WaitlistJoin => ({
  hostId,
  entryId: newId("w"),
  serviceId: "svc",
  agentKey: "agent-B",
  principal: "principal-B",
  window: { start: T0 - HOUR, end: T0 + 3 * HOUR },
  until: T0 + 3 * HOUR,
  mandates: [],
  maxPerAgent: 2,
  now: NOW,
  payload: "{}",
  ...over,
});

async function book(store: GatewayStore, hostId: string): Promise<string> {
  const placed = await store.placeHold(holdRequest(hostId, { interval: at(0, 60) }));
  if (!placed.ok) throw new Error(placed.error.reason);
  const begun = await store.beginConfirm(hostId, placed.value.holdId, NOW, 60_000);
  if (!begun.ok) throw new Error(begun.error.reason);
  const bookingId = newId("b");
  const done = await store.completeConfirm(
    hostId,
    placed.value.holdId,
    begun.value.fence,
    { bookingId, payload: "{}" },
    NOW,
  );
  if (!done.ok) throw new Error(done.error.reason);
  return bookingId;
}

function suite(name: string, make: () => Promise<{ store: GatewayStore; cleanup(): Promise<void> }>) {
  describe(`${name}: §5.9 waitlist store`, () => {
    let made: Awaited<ReturnType<typeof make>>;
    beforeAll(async () => {
      made = await make();
    });
    afterAll(async () => {
      await made.cleanup();
    });

    it("§5.9 first come, first served: the line keeps join order", async () => {
      const hostId = newHost();
      const a = await made.store.joinWaitlist(join(hostId, { agentKey: "a1" }));
      const b = await made.store.joinWaitlist(join(hostId, { agentKey: "a2" }));
      expect(a.ok && b.ok).toBe(true);
      const line = await made.store.waitingEntries(hostId, 10);
      expect(line.map((e) => e.agentKey)).toEqual(["a1", "a2"]);
      expect(line[0]?.status).toBe("waiting");
    });

    it("§5.9 max_entries_per_agent: a third entry is waitlist_limit", async () => {
      const hostId = newHost();
      expect((await made.store.joinWaitlist(join(hostId))).ok).toBe(true);
      expect((await made.store.joinWaitlist(join(hostId))).ok).toBe(true);
      const third = await made.store.joinWaitlist(join(hostId));
      expect(third).toEqual({ ok: false, error: { reason: "waitlist_limit", limit: 2 } });
      // A left entry no longer counts.
      const line = await made.store.waitingEntries(hostId, 10);
      await made.store.setWaitlistStatus(hostId, line[0]!.entryId, ["waiting"], "left");
      expect((await made.store.joinWaitlist(join(hostId))).ok).toBe(true);
    });

    it("§5.9 a waiting entry counts against the mandate's max_bookings (holds and joins alike)", async () => {
      const hostId = newHost();
      const m: MandateCount = { rootIss: "principal-B", jti: newId("jti"), maxBookings: 1 };
      expect((await made.store.joinWaitlist(join(hostId, { mandates: [m] }))).ok).toBe(true);
      const second = await made.store.joinWaitlist(join(hostId, { mandates: [m] }));
      expect(second.ok ? undefined : second.error.reason).toBe("mandate_limit");
      const hold = await made.store.placeHold(
        holdRequest(hostId, {
          interval: at(120, 180),
          owner: { agentKey: "x", principal: "principal-B", mandates: [m] },
        }),
      );
      expect(hold.ok ? undefined : hold.error.reason).toBe("mandate_limit");
    });

    it("§5.9 offerFreed frees a booking and places the first waiting entry's hold in one step", async () => {
      const hostId = newHost();
      const bookingId = await book(made.store, hostId);
      const first = await made.store.joinWaitlist(join(hostId, { agentKey: "a1" }));
      const second = await made.store.joinWaitlist(join(hostId, { agentKey: "a2" }));
      if (!first.ok || !second.ok) throw new Error("join");
      const hold = (agentKey: string) =>
        holdRequest(hostId, {
          interval: at(0, 60),
          now: NOW + 1,
          owner: { agentKey, principal: "principal-B", mandates: [] },
        });
      const outcome = await made.store.offerFreed({
        hostId,
        now: NOW + 1,
        release: { kind: "booking", bookingId },
        candidates: [
          { entryId: first.value.entryId, hold: hold("a1") },
          { entryId: second.value.entryId, hold: hold("a2") },
        ],
      });
      expect(outcome.released.ok).toBe(true);
      expect(outcome.freed).toEqual(["bay-1"]);
      expect(outcome.offered?.entryId).toBe(first.value.entryId);
      expect(outcome.offered?.hold.allocations.map((a) => a.resourceId)).toEqual(["bay-1"]);
      const entry = await made.store.getWaitlistEntry(hostId, first.value.entryId);
      expect(entry?.status).toBe("offered");
      expect(entry?.holdId).toBe(outcome.offered?.hold.holdId);
      // Nobody else can take the freed time: it is held for the entry.
      const other = await made.store.placeHold(holdRequest(hostId, { interval: at(0, 60), now: NOW + 2 }));
      expect(other.ok ? undefined : other.error.reason).toBe("slot_taken");
      expect((await made.store.offeredEntries(hostId, 10)).map((e) => e.entryId)).toEqual([
        first.value.entryId,
      ]);
    });

    it("§5.9 an offer must sit on a resource that came free, and passes over entries whose hold fails", async () => {
      const hostId = newHost();
      const bookingId = await book(made.store, hostId);
      const a = await made.store.joinWaitlist(join(hostId, { agentKey: "a1" }));
      const b = await made.store.joinWaitlist(join(hostId, { agentKey: "a2" }));
      if (!a.ok || !b.ok) throw new Error("join");
      const outcome = await made.store.offerFreed({
        hostId,
        now: NOW + 1,
        release: { kind: "booking", bookingId },
        candidates: [
          {
            entryId: a.value.entryId,
            // Another bay entirely: not the time that came free.
            hold: holdRequest(hostId, {
              now: NOW + 1,
              requirements: [{ type: "bay", candidates: [{ id: "bay-9", capacity: 1 }], units: 1 }],
            }),
          },
          {
            entryId: b.value.entryId,
            hold: holdRequest(hostId, {
              now: NOW + 1,
              caps: { principalProven: true, maxActivePerAgent: 0 },
            }),
          },
        ],
      });
      expect(outcome.offered).toBeUndefined();
      expect(outcome.passed).toEqual([
        { entryId: a.value.entryId, reason: "not_freed" },
        { entryId: b.value.entryId, reason: "agent_limit" },
      ]);
      expect((await made.store.getWaitlistEntry(hostId, a.value.entryId))?.status).toBe("waiting");
    });

    it("§5.9 leaving with an offer releases it to the next entry in the same step", async () => {
      const hostId = newHost();
      const bookingId = await book(made.store, hostId);
      const a = await made.store.joinWaitlist(join(hostId, { agentKey: "a1" }));
      const b = await made.store.joinWaitlist(join(hostId, { agentKey: "a2" }));
      if (!a.ok || !b.ok) throw new Error("join");
      const first = await made.store.offerFreed({
        hostId,
        now: NOW + 1,
        release: { kind: "booking", bookingId },
        candidates: [
          { entryId: a.value.entryId, hold: holdRequest(hostId, { now: NOW + 1, requirements: [BAY1] }) },
        ],
      });
      const heldId = first.offered!.hold.holdId;
      const next = await made.store.offerFreed({
        hostId,
        now: NOW + 2,
        release: { kind: "offer", holdId: heldId, entryId: a.value.entryId, entryStatus: "left" },
        candidates: [{ entryId: b.value.entryId, hold: holdRequest(hostId, { now: NOW + 2 }) }],
      });
      expect(next.offered?.entryId).toBe(b.value.entryId);
      expect((await made.store.getWaitlistEntry(hostId, a.value.entryId))?.status).toBe("left");
      expect((await made.store.getHold(hostId, heldId, NOW + 2))?.state).toBe("released");
      // A lapse: the hold expired, the entry lapsed, and the time is free for the public.
      const lapsedAt = NOW + 2 + TTL;
      const after = await made.store.offerFreed({
        hostId,
        now: lapsedAt,
        release: {
          kind: "offer",
          holdId: next.offered!.hold.holdId,
          entryId: b.value.entryId,
          entryStatus: "lapsed",
        },
        candidates: [],
      });
      expect(after.released.ok).toBe(true);
      expect((await made.store.getWaitlistEntry(hostId, b.value.entryId))?.status).toBe("lapsed");
      expect((await made.store.getHold(hostId, next.offered!.hold.holdId, lapsedAt))?.state).toBe("expired");
      const pub = await made.store.placeHold(holdRequest(hostId, { now: lapsedAt }));
      expect(pub.ok).toBe(true);
    });

    it("§5.9 a lapse moves down the line: a lapsed offer keeps its time from everyone but the line step; the last offer's lapse makes it public at once", async () => {
      const store = made.store;
      const hostId = newHost();
      const bookingId = await book(store, hostId);
      const a = await store.joinWaitlist(join(hostId, { agentKey: "a1" }));
      const b = await store.joinWaitlist(join(hostId, { agentKey: "a2" }));
      if (!a.ok || !b.ok) throw new Error("join");
      const offerTo = (agentKey: string, now: number) =>
        holdRequest(hostId, { now, owner: { agentKey, principal: "principal-B", mandates: [] } });
      const publicHold = (now: number) =>
        store.placeHold(
          holdRequest(hostId, { now, owner: { agentKey: "pub", principal: "pub", mandates: [] } }),
        );
      const first = await store.offerFreed({
        hostId,
        now: NOW + 1,
        release: { kind: "booking", bookingId },
        candidates: [{ entryId: a.value.entryId, hold: offerTo("a1", NOW + 1), line: true }],
      });
      const firstHold = first.offered!.hold.holdId;

      // The first offer lapses. Before the line step, nothing frees its time: not a third
      // party's hold, not the active sweeper, not a late release, not an availability read.
      const lapsed = NOW + 1 + TTL;
      expect((await store.getHold(hostId, firstHold, lapsed))?.state).toBe("expired");
      const taken = await publicHold(lapsed);
      expect(taken.ok ? undefined : taken.error.reason).toBe("slot_taken");
      await store.sweepExpired(hostId, lapsed + 1, 100);
      expect((await store.releaseHold(hostId, firstHold, lapsed + 2)).ok).toBe(true);
      const stillTaken = await publicHold(lapsed + 3);
      expect(stillTaken.ok ? undefined : stillTaken.error.reason).toBe("slot_taken");
      const occupancy = await store.listOccupancy(hostId, ["bay-1"], at(0, 60), lapsed + 3);
      expect(occupancy.get("bay-1")?.length).toBe(1);
      // Its expiry is reported once, as any expiry (§7.3).
      const events = await store.takeExpiryEvents(hostId, 100);
      expect(events.filter((e) => e.holdId === firstHold)).toHaveLength(1);

      // The line step: the entry lapses and the time goes to the next entry, whose offer is the
      // last this time gets (line: false).
      const second = await store.offerFreed({
        hostId,
        now: lapsed + 4,
        release: { kind: "offer", holdId: firstHold, entryId: a.value.entryId, entryStatus: "lapsed" },
        candidates: [{ entryId: b.value.entryId, hold: offerTo("a2", lapsed + 4), line: false }],
      });
      expect(second.released.ok).toBe(true);
      expect(second.freed).toEqual(["bay-1"]);
      expect(second.offered?.entryId).toBe(b.value.entryId);
      expect((await store.getWaitlistEntry(hostId, a.value.entryId))?.status).toBe("lapsed");

      // The last offer lapses: the time is public at once, with no line step.
      const lastLapse = lapsed + 4 + TTL;
      expect((await publicHold(lastLapse)).ok).toBe(true);
    });

    it("§5.9 a lapsed offer with nobody left in line: the line step frees its time to the public", async () => {
      const store = made.store;
      const hostId = newHost();
      const bookingId = await book(store, hostId);
      const a = await store.joinWaitlist(join(hostId, { agentKey: "a1" }));
      if (!a.ok) throw new Error("join");
      const first = await store.offerFreed({
        hostId,
        now: NOW + 1,
        release: { kind: "booking", bookingId },
        candidates: [{ entryId: a.value.entryId, hold: holdRequest(hostId, { now: NOW + 1 }), line: true }],
      });
      const holdId = first.offered!.hold.holdId;
      const lapsed = NOW + 1 + TTL;
      const pub = (now: number) =>
        store.placeHold(
          holdRequest(hostId, { now, owner: { agentKey: "pub", principal: "pub", mandates: [] } }),
        );
      const before = await pub(lapsed);
      expect(before.ok ? undefined : before.error.reason).toBe("slot_taken");
      const step = await store.offerFreed({
        hostId,
        now: lapsed + 1,
        release: { kind: "offer", holdId, entryId: a.value.entryId, entryStatus: "lapsed" },
        candidates: [],
      });
      expect(step.released.ok).toBe(true);
      expect(step.offered).toBeUndefined();
      expect((await store.getHold(hostId, holdId, lapsed + 1))?.state).toBe("expired");
      expect((await pub(lapsed + 2)).ok).toBe(true);
    });
  });
}

suite("MemoryHoldStore", () =>
  Promise.resolve({ store: new MemoryHoldStore(), cleanup: () => Promise.resolve() }),
);

let redis: TestRedis | undefined;
beforeAll(async () => {
  redis = await startTestRedis();
});
afterAll(async () => {
  await redis?.stop();
});
suite("RedisHoldStore", async () => {
  if (redis === undefined) throw new Error("no test Redis");
  const keyPrefix = uniquePrefix("waitlist");
  const store = await createRedisGatewayStore({ url: redis.url, keyPrefix });
  return {
    store,
    cleanup: async () => {
      await dropPrefix(store.redis, keyPrefix);
      await store.close();
    },
  };
});

// Every waitlist key and each offer's place-hold keys carry the host's hash tag, so offer-freed.lua
// (with the lapsed offer it frees) runs whole on the shard that owns the host.
let cluster: TestRedisCluster | undefined;
beforeAll(async () => {
  cluster = await startTestRedisCluster();
}, 60_000);
afterAll(async () => {
  await cluster?.stop();
});
suite("RedisHoldStore on a Redis Cluster", async () => {
  if (cluster === undefined) throw new Error("no test Redis Cluster");
  const keyPrefix = uniquePrefix("waitlist-cluster");
  const store = await createRedisGatewayStore({ url: cluster.url, keyPrefix });
  return {
    store,
    cleanup: async () => {
      await dropPrefix(store.redis, keyPrefix);
      await store.close();
    },
  };
});

describe("§5.9 two processes on one Redis prefix", () => {
  it("§5.9 a lapsed offer placed by one process keeps its time from a hold in another until the line step", async () => {
    if (redis === undefined) throw new Error("no test Redis");
    const keyPrefix = uniquePrefix("waitlist-2p-lapse");
    const one = await createRedisGatewayStore({ url: redis.url, keyPrefix });
    const two = await createRedisGatewayStore({ url: redis.url, keyPrefix });
    try {
      const hostId = newHost();
      const bookingId = await book(one, hostId);
      const a = await one.joinWaitlist(join(hostId, { agentKey: "a1" }));
      if (!a.ok) throw new Error("join");
      const first = await one.offerFreed({
        hostId,
        now: NOW + 1,
        release: { kind: "booking", bookingId },
        candidates: [{ entryId: a.value.entryId, hold: holdRequest(hostId, { now: NOW + 1 }), line: true }],
      });
      const lapsed = NOW + 1 + TTL;
      const pub = (now: number) =>
        two.placeHold(
          holdRequest(hostId, { now, owner: { agentKey: "pub", principal: "pub", mandates: [] } }),
        );
      await two.sweepExpired(hostId, lapsed, 100);
      const refused = await pub(lapsed + 1);
      expect(refused.ok ? undefined : refused.error.reason).toBe("slot_taken");
      const step = await two.offerFreed({
        hostId,
        now: lapsed + 2,
        release: {
          kind: "offer",
          holdId: first.offered!.hold.holdId,
          entryId: a.value.entryId,
          entryStatus: "lapsed",
        },
        candidates: [],
      });
      expect(step.freed).toEqual(["bay-1"]);
      expect((await pub(lapsed + 3)).ok).toBe(true);
    } finally {
      await dropPrefix(one.redis, keyPrefix);
      await one.close();
      await two.close();
    }
  });

  it("cannot both offer (or hold) the same freed time: one offerFreed wins, the other frees nothing", async () => {
    if (redis === undefined) throw new Error("no test Redis");
    const keyPrefix = uniquePrefix("waitlist-2p");
    const one = await createRedisGatewayStore({ url: redis.url, keyPrefix });
    const two = await createRedisGatewayStore({ url: redis.url, keyPrefix });
    try {
      const hostId = newHost();
      const bookingId = await book(one, hostId);
      const a = await one.joinWaitlist(join(hostId, { agentKey: "a1" }));
      const b = await two.joinWaitlist(join(hostId, { agentKey: "a2" }));
      if (!a.ok || !b.ok) throw new Error("join");
      const offer = (store: GatewayStore, entryId: string, agentKey: string) =>
        store.offerFreed({
          hostId,
          now: NOW + 1,
          release: { kind: "booking", bookingId },
          candidates: [
            {
              entryId,
              hold: holdRequest(hostId, {
                now: NOW + 1,
                owner: { agentKey, principal: "principal-B", mandates: [] },
              }),
            },
          ],
        });
      // Each process offers to "its" entry, and a third caller tries a public hold, all at once.
      const [r1, r2, pub] = await Promise.all([
        offer(one, a.value.entryId, "a1"),
        offer(two, b.value.entryId, "a2"),
        two.placeHold(
          holdRequest(hostId, { now: NOW + 1, owner: { agentKey: "pub", principal: "p", mandates: [] } }),
        ),
      ]);
      const offered = [r1.offered, r2.offered].filter((o) => o !== undefined);
      expect(offered).toHaveLength(1);
      expect(pub.ok).toBe(false);
      // The loser saw the booking already released: nothing was freed for it to offer.
      expect([r1.freed.length, r2.freed.length].sort()).toEqual([0, 1]);
      const statuses = [
        (await one.getWaitlistEntry(hostId, a.value.entryId))?.status,
        (await one.getWaitlistEntry(hostId, b.value.entryId))?.status,
      ].sort();
      expect(statuses).toEqual(["offered", "waiting"]);
    } finally {
      await dropPrefix(one.redis, keyPrefix);
      await one.close();
      await two.close();
    }
  });
});
