/**
 * RedisIdempotencyStore on a real Redis: the shared contract, then the key layout and TTLs,
 * errors as IdempotencyStoreError, NOSCRIPT recovery, atomicity across clients (the
 * multi-process case), and a client that close() leaves to its owner.
 */
import { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { IdempotencyStoreError } from "../../../../src/edges/osbp/idempotency/port.js";
import { RedisIdempotencyStore } from "../../../../src/edges/osbp/idempotency/redis.js";
import {
  dropPrefix,
  startOwnRedis,
  startTestRedis,
  type TestRedis,
  uniquePrefix,
} from "../../../support/redis.js";
import {
  freshKey,
  held,
  HASH_A,
  HASH_B,
  idempotencyStoreContract,
  LEASE_MS,
  receipt,
  RETENTION_MS,
  T0,
} from "./contract.js";

let server: TestRedis | undefined;
beforeAll(async () => {
  server = await startTestRedis();
});
afterAll(async () => {
  await server?.stop();
});

function client(url: string): Redis {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  redis.on("error", () => undefined);
  return redis;
}

idempotencyStoreContract("RedisIdempotencyStore", (timings) => {
  if (server === undefined) return Promise.reject(new Error("no test Redis"));
  const redis = client(server.url);
  const prefix = uniquePrefix("idem");
  return Promise.resolve({
    store: new RedisIdempotencyStore(redis, { prefix, ...timings }),
    cleanup: async () => {
      await dropPrefix(redis, prefix);
      redis.disconnect();
    },
  });
});

describe("RedisIdempotencyStore", () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  function setUp(url = server?.url) {
    if (url === undefined) throw new Error("no test Redis");
    const redis = client(url);
    const prefix = uniquePrefix("idem");
    const store = new RedisIdempotencyStore(redis, { prefix, leaseMs: LEASE_MS, retentionMs: RETENTION_MS });
    cleanups.push(async () => {
      // A client a test disconnected wrote nothing worth dropping.
      await dropPrefix(redis, prefix).catch(() => undefined);
      redis.disconnect();
    });
    return { redis, prefix, store };
  }

  it("keeps each entry under ${prefix}osbp:idem:{<organization>:<key>} with the entry's lifetime as TTL", async () => {
    const { redis, prefix, store } = setUp();
    const key = freshKey();
    const redisKey = `${prefix}osbp:idem:{org_1:${key.key}}`;
    expect(store.keyOf(key)).toBe(redisKey);

    await store.begin(key, HASH_A, T0);
    expect(await redis.hgetall(redisKey)).toEqual({
      st: "started",
      ph: HASH_A,
      un: String(T0 + LEASE_MS),
    });
    const leaseTtl = await redis.pttl(redisKey);
    expect(leaseTtl).toBeGreaterThan(0);
    expect(leaseTtl).toBeLessThanOrEqual(LEASE_MS);

    await store.settle(held(key, HASH_A), receipt(), T0 + 1);
    expect(await redis.hgetall(redisKey)).toMatchObject({ st: "settled", un: String(T0 + 1 + RETENTION_MS) });
    expect(await redis.pttl(redisKey)).toBeGreaterThan(LEASE_MS);

    await store.begin(freshKey(), HASH_A, T0);
    await store.release(held(key, HASH_A)); // settled: stays
    expect(await redis.exists(redisKey)).toBe(1);
  });

  it("reads entries the previous version wrote under the key `mcp` uses", async () => {
    // `booking-gateway mcp` opens the store with the prefix `<REDIS_KEY_PREFIX>osbp:idempotency:`.
    const { redis } = setUp();
    const deployed = `${uniquePrefix("idem")}osbp:idempotency:`;
    cleanups.push(() => dropPrefix(redis, deployed).then(() => undefined));
    const store = new RedisIdempotencyStore(redis, {
      prefix: deployed,
      leaseMs: LEASE_MS,
      retentionMs: RETENTION_MS,
    });
    const done = { scope: "org_1", key: "idem_done" };
    const running = { scope: "org_1", key: "idem_running" };
    await redis.hset(`${deployed}osbp:idem:{org_1:idem_done}`, {
      st: "settled",
      ph: HASH_A,
      un: String(T0 + RETENTION_MS),
      rc: JSON.stringify(receipt(5)),
    });
    await redis.hset(`${deployed}osbp:idem:{org_1:idem_running}`, {
      st: "started",
      ph: HASH_A,
      un: String(T0 + LEASE_MS),
    });
    expect(await store.begin(done, HASH_A, T0 + 1)).toEqual({ kind: "replay", answer: receipt(5) });
    expect(await store.begin(done, HASH_B, T0 + 1)).toEqual({ kind: "conflict" });
    expect(await store.begin(running, HASH_A, T0 + 1)).toEqual({ kind: "in_progress" });
    expect(await store.begin(running, HASH_B, T0 + 1)).toEqual({ kind: "conflict" });
    await store.settle(held(running, HASH_A), receipt(6), T0 + 2);
    expect(await redis.hgetall(`${deployed}osbp:idem:{org_1:idem_running}`)).toEqual({
      st: "settled",
      ph: HASH_A,
      un: String(T0 + 2 + RETENTION_MS),
      rc: JSON.stringify(receipt(6)),
    });
  });

  it("release deletes the key", async () => {
    const { redis, store } = setUp();
    const key = freshKey();
    await store.begin(key, HASH_A, T0);
    await store.release(held(key, HASH_A));
    expect(await redis.exists(store.keyOf(key))).toBe(0);
  });

  it("stores with different prefixes on one server do not see each other", async () => {
    const a = setUp();
    const b = setUp();
    const same = { scope: "org_1", key: "same-key" };
    await a.store.begin(same, HASH_A, T0);
    expect(await b.store.begin(same, HASH_B, T0)).toEqual({ kind: "started", claim: HASH_B });
  });

  it("is atomic across clients: concurrent begins from many connections start exactly once", async () => {
    const { prefix } = setUp();
    const stores = Array.from({ length: 8 }, () => {
      const { redis } = setUp();
      return new RedisIdempotencyStore(redis, { prefix, leaseMs: LEASE_MS });
    });
    const key = freshKey();
    const results = await Promise.all(
      stores.flatMap((store) => Array.from({ length: 10 }, () => store.begin(key, HASH_A, T0))),
    );
    expect(results.filter((r) => r.kind === "started")).toHaveLength(1);
  });

  it("a settled entry written by one client is replayed by another", async () => {
    const one = setUp();
    const other = new RedisIdempotencyStore(setUp().redis, { prefix: one.prefix });
    const key = freshKey();
    await one.store.begin(key, HASH_A, T0);
    await one.store.settle(held(key, HASH_A), receipt(9), T0 + 1);
    expect(await other.begin(key, HASH_A, T0 + 2)).toEqual({ kind: "replay", answer: receipt(9) });
  });

  it("an unusable entry is an IdempotencyStoreError, not a fresh start", async () => {
    const { redis, store } = setUp();
    const key = freshKey();
    await redis.hset(store.keyOf(key), { st: "settled", ph: HASH_A, un: String(T0 + 1000), rc: "{not json" });
    const beginning = store.begin(key, HASH_A, T0);
    await expect(beginning).rejects.toBeInstanceOf(IdempotencyStoreError);
    await expect(beginning).rejects.toThrow(/not JSON/);
    await redis.hset(store.keyOf(key), { st: "weird", rc: "" });
    await expect(store.begin(key, HASH_A, T0)).rejects.toThrow(/unknown state/);
  });

  it("a Redis failure rejects with IdempotencyStoreError", async () => {
    const { redis, store } = setUp();
    redis.disconnect();
    const offline = new Redis(server?.url ?? "", { lazyConnect: true, enableOfflineQueue: false });
    offline.on("error", () => undefined);
    cleanups.push(() => Promise.resolve(offline.disconnect()));
    const failing = new RedisIdempotencyStore(offline);
    await expect(failing.begin(freshKey(), HASH_A, T0)).rejects.toBeInstanceOf(IdempotencyStoreError);
    await expect(store.settle(held(freshKey(), HASH_A), receipt(), T0)).rejects.toBeInstanceOf(
      IdempotencyStoreError,
    );
  });

  it("reloads its scripts after the server lost them (NOSCRIPT), on a private server", async () => {
    const own = await startOwnRedis();
    cleanups.push(() => own.stop());
    const { redis, store } = setUp(own.url);
    const key = freshKey();
    await store.begin(key, HASH_A, T0);
    await redis.script("FLUSH");
    await store.settle(held(key, HASH_A), receipt(), T0 + 1);
    await redis.script("FLUSH");
    expect(await store.begin(key, HASH_A, T0 + 2)).toEqual({ kind: "replay", answer: receipt() });
  });

  it("close() leaves the caller's client connected; the closed store rejects", async () => {
    const { redis, store } = setUp();
    await store.begin(freshKey(), HASH_A, T0);
    await store.close();
    expect(await redis.ping()).toBe("PONG");
    await expect(store.begin(freshKey(), HASH_A, T0)).rejects.toThrow(/closed/);
  });

  it("rejects non-positive timings", () => {
    const { redis } = setUp();
    expect(() => new RedisIdempotencyStore(redis, { retentionMs: -1 })).toThrow(RangeError);
  });
});
