/**
 * What only the Redis store has to show, beyond the shared contract: its key layout
 * (every key of a host in one Cluster slot, nothing outside its prefix), scripts found
 * and reloaded after NOSCRIPT, checks-before-writes inside a script, bounded overlap
 * queries, pruning, and expiry events taken exactly once across connections.
 */
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HoldStoreUnavailableError, type PlaceHoldRequest } from "../../../src/holds/port.js";
import { createRedisGatewayStore, type RedisHoldStore } from "../../../src/holds/redis/index.js";
import { isSlotMoving, luaDirectory, readScripts, SCRIPT_NAMES } from "../../../src/holds/redis/scripts.js";
import { dropPrefix, startTestRedis, type TestRedis, uniquePrefix } from "../../support/redis.js";
import { consistencyProblems, readHostState } from "./inspect.js";

const T0 = Date.UTC(2030, 0, 7, 9, 0, 0);
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const NOW = T0 - HOUR;

let redis: TestRedis | undefined;
let admin: Redis | undefined;
const stores: RedisHoldStore[] = [];

beforeAll(async () => {
  redis = await startTestRedis();
  admin = new Redis(redis.url);
});
afterAll(async () => {
  for (const store of stores) if (admin !== undefined) await dropPrefix(admin, store.keys.prefix);
  await Promise.all(stores.map((s) => s.close()));
  admin?.disconnect();
  await redis?.stop();
});

async function newStore(prefix = uniquePrefix("store")): Promise<RedisHoldStore> {
  if (redis === undefined) throw new Error("no test Redis");
  const store = await createRedisGatewayStore({ url: redis.url, keyPrefix: prefix });
  stores.push(store);
  return store;
}

function request(hostId: string, over: Partial<PlaceHoldRequest> = {}): PlaceHoldRequest {
  return {
    hostId,
    holdId: `h-${Math.random().toString(36).slice(2)}`,
    serviceId: "svc",
    interval: { start: T0, end: T0 + HOUR },
    requirements: [{ type: "bay", candidates: [{ id: "bay-1", capacity: 1 }], units: 1 }],
    ttlMs: 5 * MINUTE,
    now: NOW,
    owner: { agentKey: "agent", principal: "p", mandates: [{ rootIss: "iss", jti: "jti", maxBookings: 9 }] },
    caps: { principalProven: false, maxActiveUnproven: 9, maxActivePerAgent: 9 },
    payload: "{}",
    ...over,
  };
}

const adminClient = (): Redis => {
  if (admin === undefined) throw new Error("no admin client");
  return admin;
};

describe("RedisHoldStore keys", () => {
  it("puts every key of a host under its prefix and the {hostId} hash tag (one Cluster slot)", async () => {
    const prefix = uniquePrefix("keys");
    const store = await newStore(prefix);
    const hostId = "maple-street-auto";
    const held = await store.placeHold(request(hostId));
    if (!held.ok) throw new Error(held.error.reason);
    const begun = await store.beginConfirm(hostId, held.value.holdId, NOW, MINUTE);
    if (!begun.ok) throw new Error(begun.error.reason);
    await store.completeConfirm(
      hostId,
      held.value.holdId,
      begun.value.fence,
      { bookingId: "b-1", payload: "" },
      NOW,
    );
    await store.replaceBusy(hostId, "bay-2", "calendar", [{ start: T0, end: T0 + HOUR }]);
    await store.placeHold(request(hostId, { ttlMs: 1, interval: { start: T0 + DAY, end: T0 + DAY + HOUR } }));
    await store.sweepExpired(hostId, NOW + MINUTE, 10);

    const keys = await adminClient().keys(`${prefix}*`);
    const global = new Set([`${prefix}hosts`]);
    for (const key of keys) {
      if (global.has(key)) continue;
      // The Cluster slot is the hash of the first {…} in the key.
      expect(/^[^{]*\{([^}]*)\}/.exec(key)?.[1], key).toBe(hostId);
    }
    expect(keys.length).toBeGreaterThan(8);
  });

  it("keeps nonces, idempotency records and reputation under the prefix too", async () => {
    const prefix = uniquePrefix("side");
    const store = await newStore(prefix);
    await store.rememberIfNew("key-1", "nonce-1", Math.floor(Date.now() / 1000) + 60);
    await store.beginIdempotent({ agentKey: "a", idempotencyKey: "k" }, "hash", NOW, MINUTE);
    await store.recordOutcome({ kind: "agent", id: "a" }, "confirmed", NOW);
    const keys = await adminClient().keys(`${prefix}*`);
    expect(keys.sort()).toEqual([
      `${prefix}idem:1:ak`,
      `${prefix}nonce:5:key-1nonce-1`,
      `${prefix}rep:agent:a`,
    ]);
  });
});

describe("RedisHoldStore scripts", () => {
  it("finds its Lua files beside the module and builds one script per operation", () => {
    expect(luaDirectory()).toMatch(/src\/holds\/redis\/lua\/$/);
    const scripts = readScripts();
    expect([...scripts.keys()]).toEqual([...SCRIPT_NAMES]);
    for (const script of scripts.values()) expect(script.source.startsWith("#!lua")).toBe(true);
  });

  it("calls a script again only on a slot move's answers, never after a failover's (it may have run)", () => {
    // The messages Redis 7 and ioredis 5 give (seen in test/cluster/*.test.ts runs).
    const moving = [
      "ERR Script attempted to access a non local key in a cluster node script: 67604da1, on @user_script:1.",
      "Too many Cluster redirections. Last error: ReplyError: TRYAGAIN Multiple keys request during rehashing of slot",
      "Too many Cluster redirections. Last error: ReplyError: ASK 2259 127.0.0.1:7002",
      "TRYAGAIN Multiple keys request during rehashing of slot",
    ];
    const notMoving = [
      "Too many Cluster redirections. Last error: Error: Connection is closed.",
      "Too many Cluster redirections. Last error: ReplyError: CLUSTERDOWN The cluster is down",
      "Too many Cluster redirections. Last error: ReplyError: MOVED 4977 127.0.0.1:35055",
      "ERR Script attempted to execute a command while the cluster is down",
      'Reached the max retries per request limit (which is 0). Refer to "maxRetriesPerRequest" option for details.',
      "Command timed out",
      "NOSCRIPT No matching script.",
    ];
    for (const m of moving) expect(isSlotMoving(new Error(m)), m).toBe(true);
    for (const m of notMoving) expect(isSlotMoving(new Error(m)), m).toBe(false);
  });

  it("starts every script with the slot guard on a cluster, and never on a single Redis", () => {
    // The guard must come before any other command: a script that stops at it has written
    // nothing, so the runner may call it again (lua/slot-guard.lua).
    const guarded = readScripts(luaDirectory(), { slotGuard: true });
    for (const [name, script] of guarded) {
      const body = script.source.split("\n").slice(1).join("\n");
      expect(body.startsWith("-- Cluster only"), name).toBe(true);
      expect(body.indexOf("redis.call"), name).toBe(body.indexOf('redis.call("EXISTS", tag'));
      expect(script.sha, name).not.toBe(readScripts().get(name)?.sha);
    }
    for (const script of readScripts().values())
      expect(script.source).not.toContain('redis.call("EXISTS", tag');
  });

  it("loads its scripts again when Redis has lost them (NOSCRIPT), and carries on", async () => {
    const store = await newStore();
    const hostId = "flushed";
    await adminClient().script("FLUSH");
    const before = store.scriptReloads;
    expect((await store.placeHold(request(hostId))).ok).toBe(true);
    expect(store.scriptReloads).toBe(before + 1);
    expect(
      (await store.placeHold(request(hostId, { interval: { start: T0 + HOUR, end: T0 + 2 * HOUR } }))).ok,
    ).toBe(true);
    expect(store.scriptReloads).toBe(before + 1);
  });

  it("checks before it writes: a failure inside the script leaves nothing behind", async () => {
    const prefix = uniquePrefix("atomic");
    const store = await newStore(prefix);
    const hostId = "atomic";
    const lapsing = await store.placeHold(request(hostId, { ttlMs: MINUTE }));
    if (!lapsing.ok) throw new Error(lapsing.error.reason);
    // Corrupt one candidate's occupancy: reading it fails after bay-1 was found free and
    // after the lapsed hold was found, but before anything was written.
    await adminClient().set(`${prefix}{${hostId}}:occ:tech-1`, "not a sorted set");
    const both = request(hostId, {
      now: NOW + 2 * MINUTE,
      requirements: [
        { type: "bay", candidates: [{ id: "bay-1", capacity: 1 }], units: 1 },
        { type: "tech", candidates: [{ id: "tech-1", capacity: 1 }], units: 1 },
      ],
    });
    await expect(store.placeHold(both)).rejects.toBeInstanceOf(HoldStoreUnavailableError);
    expect(await store.getHold(hostId, both.holdId, NOW)).toBeUndefined();
    // The lapsed hold was not expired either (its expiry would have been written with the rest).
    expect(await store.takeExpiryEvents(hostId, 10)).toEqual([]);
    await adminClient().del(`${prefix}{${hostId}}:occ:tech-1`);
    const state = await readHostState(adminClient(), prefix, hostId);
    expect(state.allocations.map((a) => a.holdId)).toEqual([lapsing.value.holdId]);
    expect(consistencyProblems(state)).toEqual([]);
  });
});

describe("RedisHoldStore occupancy", () => {
  it("finds long entries that began well before the queried interval (bounded overlap query)", async () => {
    const store = await newStore();
    const hostId = "long";
    // A ten-day busy block, then a short hold far later: the short one must not narrow the bound.
    await store.replaceBusy(hostId, "bay-1", "calendar", [{ start: T0 - DAY, end: T0 + 9 * DAY }]);
    const later = await store.placeHold(
      request(hostId, { interval: { start: T0 + 20 * DAY, end: T0 + 20 * DAY + HOUR } }),
    );
    expect(later.ok).toBe(true);
    const inside = await store.placeHold(
      request(hostId, { interval: { start: T0 + 5 * DAY, end: T0 + 5 * DAY + HOUR } }),
    );
    expect(inside).toMatchObject({ ok: false, error: { reason: "slot_taken" } });
    // And a long hold blocks a short one deep inside it.
    const open = await store.placeHold(
      request(hostId, {
        requirements: [{ type: "bay", candidates: [{ id: "bay-2", capacity: 1 }], units: 1 }],
        interval: { start: T0, end: T0 + 3 * DAY },
      }),
    );
    expect(open.ok).toBe(true);
    const deep = await store.placeHold(
      request(hostId, {
        requirements: [{ type: "bay", candidates: [{ id: "bay-2", capacity: 1 }], units: 1 }],
        interval: { start: T0 + 2 * DAY, end: T0 + 2 * DAY + MINUTE },
      }),
    );
    expect(deep).toMatchObject({ ok: false, error: { reason: "slot_taken" } });
  });

  it("the sweeper prunes occupancy that ended long ago, and keeps what is current", async () => {
    const prefix = uniquePrefix("prune");
    const store = await newStore(prefix);
    const hostId = "prune";
    const old = await store.placeHold(request(hostId, { ttlMs: 10 * DAY }));
    await store.replaceBusy(hostId, "bay-1", "calendar", [{ start: T0 - 3 * DAY, end: T0 - 2 * DAY }]);
    const future = await store.placeHold(
      request(hostId, { ttlMs: 10 * DAY, interval: { start: T0 + 3 * DAY, end: T0 + 3 * DAY + HOUR } }),
    );
    expect(old.ok && future.ok).toBe(true);
    const key = `${prefix}{${hostId}}:occ:bay-1`;
    expect(await adminClient().zcard(key)).toBe(3);
    // Two days after the first hold ended: it and the busy block are past the 1-day margin.
    await store.sweepExpired(hostId, T0 + HOUR + 2 * DAY, 10);
    const left = await adminClient().zrange(key, "0", "-1");
    expect(left).toHaveLength(1);
    expect(left[0]).toContain(future.ok ? future.value.holdId : "?");
  });
});

describe("RedisHoldStore expiry events", () => {
  it("hands each event to exactly one of several consumers on separate connections", async () => {
    const prefix = uniquePrefix("events");
    const producer = await newStore(prefix);
    const consumers = await Promise.all([newStore(prefix), newStore(prefix), newStore(prefix)]);
    const hostId = "events";
    const ids: string[] = [];
    for (let i = 0; i < 30; i++) {
      const held = await producer.placeHold(
        request(hostId, {
          ttlMs: MINUTE,
          interval: { start: T0 + i * HOUR, end: T0 + (i + 1) * HOUR },
          caps: { principalProven: true },
          owner: { agentKey: "agent", principal: "p", mandates: [] },
        }),
      );
      if (held.ok) ids.push(held.value.holdId);
    }
    expect(await producer.sweepExpired(hostId, NOW + MINUTE, 100)).toBe(30);
    const taken = await Promise.all(
      consumers.map(async (c) => {
        const mine: string[] = [];
        for (;;) {
          const batch = await c.takeExpiryEvents(hostId, 2);
          if (batch.length === 0) return mine;
          mine.push(...batch.map((e) => e.holdId));
        }
      }),
    );
    const all = taken.flat();
    expect(all).toHaveLength(30);
    expect(new Set(all)).toEqual(new Set(ids));
  });
});

describe("createRedisGatewayStore", () => {
  it("rejects with HoldStoreUnavailableError when nothing answers", async () => {
    await expect(
      createRedisGatewayStore({ url: "redis://127.0.0.1:1", keyPrefix: "x:", startWithinMs: 200 }),
    ).rejects.toBeInstanceOf(HoldStoreUnavailableError);
  });
});
