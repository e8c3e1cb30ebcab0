/**
 * A host's slot half moved (what must hold: "MOVED/ASK redirections ... end in a retry or an
 * explicit error — never a partial allocation"). Redis routes a script by its declared keys,
 * but a confirm or a release also touches keys it finds in the hold's record (its count keys,
 * its resources' occupancy). Here exactly such a key is moved to the other master first, as a
 * `redis-cli --cluster reshard` batch can: without src/holds/redis/lua/slot-guard.lua the
 * script fails at that key after writing the hold's new state (Redis does not roll a script
 * back), and these tests fail. With it, the call writes nothing, waits for the move to end and
 * then runs whole on the new master, or fails explicitly once its wait is spent.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HoldStoreUnavailableError, type PlaceHoldRequest } from "../../src/holds/port.js";
import type { RedisKeys } from "../../src/holds/redis/index.js";
import { createRedisGatewayStore, type RedisHoldStore } from "../../src/holds/redis/index.js";
import { consistencyProblems, readHostState } from "../holds/redis/inspect.js";
import { sleep, uniquePrefix } from "../support/redis.js";
import { startOwnRedisCluster, type TestRedisCluster } from "../support/redis-cluster.js";
import { node, ownerOf, startSlotMove } from "./slot-move.js";

const T0 = Date.UTC(2030, 0, 7, 9, 0);
const NOW = T0 - 3_600_000;
const TTL = 3_600_000;

let cluster: TestRedisCluster;
const stores: RedisHoldStore[] = [];
beforeAll(async () => {
  cluster = await startOwnRedisCluster({ replicasPerMaster: 0 });
}, 60_000);
afterAll(async () => {
  await Promise.all(stores.map((s) => s.close().catch(() => undefined)));
  await cluster?.stop();
});

async function storeFor(prefix: string, slotMoveWaitMs?: number): Promise<RedisHoldStore> {
  const store = await createRedisGatewayStore({
    url: cluster.url,
    keyPrefix: prefix,
    ...(slotMoveWaitMs !== undefined && { slotMoveWaitMs }),
  });
  stores.push(store);
  return store;
}

/** One hold on a bay and a lift: two occupancy keys, plus the agent's count key. */
function request(hostId: string, holdId: string, start = T0, ttlMs = TTL): PlaceHoldRequest {
  return {
    hostId,
    holdId,
    serviceId: "alignment",
    interval: { start, end: start + 3_600_000 },
    requirements: [
      { type: "bay", candidates: [{ id: "bay-1", capacity: 1 }], units: 1 },
      { type: "lift", candidates: [{ id: "lift-1", capacity: 1 }], units: 1 },
    ],
    ttlMs,
    now: NOW,
    owner: { agentKey: "agent-1", principal: "principal-1", mandates: [] },
    caps: { principalProven: true, maxActivePerAgent: 10 },
    payload: "{}",
  };
}

/**
 * A host with some history, so every key the scripts DECLARE exists: a hold in confirm (the
 * lease index) and an expiry not yet taken (the events list). A declared key that does not
 * exist yet makes Redis answer TRYAGAIN while the slot moves, before the script starts; the
 * case the guard is for is a script that does start, on the source, with its declared keys.
 */
async function withHistory(store: RedisHoldStore, hostId: string): Promise<void> {
  expect((await store.placeHold(request(hostId, "in-confirm", T0 + 3_600_000))).ok).toBe(true);
  expect((await store.beginConfirm(hostId, "in-confirm", NOW, 600_000)).ok).toBe(true);
  expect((await store.placeHold(request(hostId, "lapsing", T0 + 7_200_000, 1000))).ok).toBe(true);
  expect(await store.sweepExpired(hostId, NOW + 2000, 10)).toBe(1);
}

/** The host's slot, the master that has it and another one. */
async function placement(keys: RedisKeys, hostId: string) {
  const admin = node(cluster.ports[0] ?? 0);
  const slot = Number(await admin.call("CLUSTER", "KEYSLOT", keys.host(hostId)));
  admin.disconnect();
  const from = await ownerOf(cluster.ports[0] ?? 0, slot);
  const to = cluster.ports.find((p) => p !== from) ?? 0;
  return { slot, from, to };
}

describe("a script whose host's slot is half moved", { timeout: 60_000 }, () => {
  it("writes nothing and fails explicitly once its wait is spent; after the move it runs whole", async () => {
    const prefix = uniquePrefix("guard-confirm");
    const hostId = "garage-a";
    const store = await storeFor(prefix, 300);
    const keys = store.keys;
    await withHistory(store, hostId);
    expect((await store.placeHold(request(hostId, "h1"))).ok).toBe(true);
    const { slot, from, to } = await placement(keys, hostId);
    const holdKey = keys.hold(hostId, "h1");
    const source = node(from);
    const target = node(to);
    try {
      const countKeys = JSON.parse(String(await source.hget(holdKey, "ik"))) as string[];
      expect(countKeys.length).toBeGreaterThan(0);
      const before = await source.hgetall(holdKey);

      // The hold's count key goes first; the hold itself stays on the source.
      const move = await startSlotMove(cluster, slot, from, to);
      try {
        await move.migrate(countKeys);
        const retriesBefore = store.slotMoveRetries;
        await expect(store.beginConfirm(hostId, "h1", NOW, 60_000)).rejects.toBeInstanceOf(
          HoldStoreUnavailableError,
        );
        expect(store.slotMoveRetries).toBeGreaterThan(retriesBefore);
        // Nothing written on either side: the hold is still held, still in the expiry index,
        // and its count key still scores its expiry (a confirming hold's is +inf).
        expect(await source.hgetall(holdKey)).toEqual(before);
        expect(await source.zscore(keys.holdExpiry(hostId), "h1")).toBe(String(NOW + TTL));
        for (const k of countKeys) {
          await target.call("ASKING"); // the target serves an importing slot's keys only after ASKING
          expect(await target.zscore(k, "h1")).toBe(String(NOW + TTL));
        }

        await move.migrateRest(100);
        await move.finish();
      } finally {
        move.close();
      }
      const begun = await store.beginConfirm(hostId, "h1", NOW, 60_000);
      expect(begun.ok).toBe(true);
      expect(await target.hget(holdKey, "s")).toBe("confirming");
      for (const k of countKeys) expect(await target.zscore(k, "h1")).toBe("inf");
      expect(consistencyProblems(await readHostState(store.redis, prefix, hostId))).toEqual([]);
    } finally {
      source.disconnect();
      target.disconnect();
    }
  });

  it("a release that meets one of its resources already moved waits for the move, then frees both", async () => {
    const prefix = uniquePrefix("guard-release");
    const hostId = "garage-b";
    const store = await storeFor(prefix);
    const keys = store.keys;
    await withHistory(store, hostId);
    expect((await store.placeHold(request(hostId, "h1"))).ok).toBe(true);
    const { slot, from, to } = await placement(keys, hostId);

    const move = await startSlotMove(cluster, slot, from, to);
    let released: Awaited<ReturnType<RedisHoldStore["releaseHold"]>> | undefined;
    try {
      // The lift's occupancy is on the target, the bay's and the hold still on the source.
      await move.migrate([keys.occupancy(hostId, "lift-1")]);
      const release = store.releaseHold(hostId, "h1", NOW).then((r) => (released = r));
      await sleep(250);
      expect(released, "the release waits while the slot moves").toBeUndefined();
      // ... having written nothing: the bay (still on the source) is still the hold's.
      const source = node(from);
      try {
        const bay = await source.zrange(keys.occupancy(hostId, "bay-1"), "0", "-1");
        expect(bay.filter((m) => m.endsWith("|h1"))).toHaveLength(1);
        expect(await source.hget(keys.hold(hostId, "h1"), "s")).toBe("held");
      } finally {
        source.disconnect();
      }
      await move.migrateRest(2);
      await move.finish();
      await release;
    } finally {
      move.close();
    }
    expect(released?.ok).toBe(true);
    expect(store.slotMoveRetries).toBeGreaterThan(0);
    const state = await readHostState(store.redis, prefix, hostId);
    expect(consistencyProblems(state)).toEqual([]);
    expect(
      state.allocations.filter((a) => a.holdId === "h1"),
      "both resources are free again",
    ).toEqual([]);
    expect((await store.placeHold(request(hostId, "h2"))).ok).toBe(true);
  });
});
