/**
 * The one Redis lock (src/redis/lock.ts) on a real Redis and on the real Redis Cluster the
 * periodic jobs, the calendar push lock and the OAuth refresh lock may run on: one holder at a
 * time, renewal and release only by the holder, a lapsed lease neither renewable nor freeable
 * by its old holder, and the key's TTL as asked. Each suite uses its own key prefix.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openRedis, type RedisClient } from "../../src/redis/client.js";
import { acquireLock, lockTtl, releaseLock, renewLock } from "../../src/redis/lock.js";
import { dropPrefix, sleep, startTestRedis, uniquePrefix, type TestRedis } from "../support/redis.js";
import { startTestRedisCluster, type TestRedisCluster } from "../support/redis-cluster.js";

function lockContract(name: string, start: () => Promise<{ url: string; stop(): Promise<void> }>) {
  describe(name, () => {
    let server: { url: string; stop(): Promise<void> };
    let redis: RedisClient;
    const prefix = uniquePrefix("lock");
    // Hash-tagged keys, as the callers name theirs; several tags so keys land on several shards.
    const key = (tag: string, n: string) => `${prefix}{${tag}}:${n}`;

    beforeAll(async () => {
      server = await start();
      redis = openRedis(server.url);
    }, 60_000);
    afterAll(async () => {
      await dropPrefix(redis, prefix);
      await redis.quit();
      await server.stop();
    });

    it("one holder at a time; the key holds the lease's token for the TTL asked", async () => {
      for (const tag of ["a", "b", "c", "d"]) {
        const k = key(tag, "one");
        const lease = await acquireLock(redis, k, 10_000);
        expect(lease).toBeDefined();
        expect(lease?.key).toBe(k);
        expect(await redis.get(k)).toBe(lease?.token);
        const ttl = await redis.pttl(k);
        expect(ttl).toBeGreaterThan(9_000);
        expect(ttl).toBeLessThanOrEqual(10_000);
        expect(await acquireLock(redis, k, 10_000)).toBeUndefined();
        expect(await lease?.release()).toBe(true);
        expect(await redis.exists(k)).toBe(0);
        const again = await acquireLock(redis, k, 10_000);
        expect(again).toBeDefined();
        expect(again?.token).not.toBe(lease?.token);
        await again?.release();
      }
    });

    it("renew extends the holder's lease; another token renews and frees nothing", async () => {
      const k = key("r", "renew");
      const lease = await acquireLock(redis, k, 1_000);
      expect(lease).toBeDefined();
      expect(await lease?.renew(30_000)).toBe(true);
      expect(await redis.pttl(k)).toBeGreaterThan(29_000);
      expect(await renewLock(redis, k, "not-the-token", 60_000)).toBe(false);
      expect(await releaseLock(redis, k, "not-the-token")).toBe(false);
      expect(await redis.get(k)).toBe(lease?.token);
      expect(await redis.pttl(k)).toBeLessThanOrEqual(30_000);
      await lease?.release();
    });

    it("a lapsed lease taken by another: the old holder can neither renew nor free it", async () => {
      const k = key("l", "lapsed");
      const old = await acquireLock(redis, k, 50);
      expect(old).toBeDefined();
      await sleep(120);
      const next = await acquireLock(redis, k, 10_000);
      expect(next).toBeDefined();
      expect(await old?.renew(10_000)).toBe(false);
      expect(await old?.release()).toBe(false);
      expect(await redis.get(k)).toBe(next?.token);
      // Nor a lapsed lease nobody took since: nothing to renew.
      await next?.release();
      expect(await old?.renew(10_000)).toBe(false);
      expect(await redis.exists(k)).toBe(0);
    });

    it("racing acquirers: exactly one wins", async () => {
      const k = key("race", "x");
      const leases = await Promise.all(Array.from({ length: 20 }, () => acquireLock(redis, k, 10_000)));
      const won = leases.filter((l) => l !== undefined);
      expect(won).toHaveLength(1);
      await won[0]?.release();
    });
  });
}

describe("lockTtl", () => {
  it("whole milliseconds, at least 1", () => {
    expect(lockTtl(1500)).toBe(1500);
    expect(lockTtl(1.2)).toBe(2);
    expect(lockTtl(0)).toBe(1);
    expect(lockTtl(-5)).toBe(1);
  });
});

lockContract("on one Redis", async (): Promise<TestRedis> => startTestRedis());
lockContract("on a Redis Cluster", async (): Promise<TestRedisCluster> => startTestRedisCluster());
