/** The availability token bucket in Redis (SchCP §7.2): one allowance per agent key across processes. */
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MemoryRateLimiter } from "../../../src/edges/http/rate-limit.js";
import { RedisRateLimiter } from "../../../src/gateway/runtime/redis-rate-limit.js";
import { HoldStoreUnavailableError } from "../../../src/holds/port.js";
import { startTestRedis, uniquePrefix } from "../../support/redis.js";
import type { TestRedis } from "../../support/redis.js";

let server: TestRedis;
let a: Redis;
let b: Redis;

beforeAll(async () => {
  server = await startTestRedis();
  a = new Redis(server.url);
  b = new Redis(server.url);
});
afterAll(async () => {
  a.disconnect();
  b.disconnect();
  await server.stop();
});

describe("RedisRateLimiter", () => {
  it("behaves like the in-process bucket over the same schedule", async () => {
    const policy = { capacity: 3, refillPerSec: 2 };
    const redis = new RedisRateLimiter(a, policy, uniquePrefix("rl"));
    const memory = new MemoryRateLimiter(policy);
    const t0 = 5_000_000;
    for (const t of [0, 0, 0, 0, 100, 499, 500, 900, 2000, 2000, 2000, 2000]) {
      expect(await redis.take("agent", t0 + t), `t=${t}`).toEqual(await memory.take("agent", t0 + t));
    }
  });

  it("shares one allowance between two processes (two clients) and never over-grants under concurrency", async () => {
    const prefix = uniquePrefix("rl");
    const one = new RedisRateLimiter(a, { capacity: 10, refillPerSec: 0.001 }, prefix);
    const two = new RedisRateLimiter(b, { capacity: 10, refillPerSec: 0.001 }, prefix);
    const now = 7_000_000;
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) => (i % 2 ? one : two).take("agent", now)),
    );
    expect(results.filter((r) => r.ok)).toHaveLength(10);
    expect((await one.take("other-agent", now)).ok).toBe(true);
  });

  it("expires idle buckets", async () => {
    const prefix = uniquePrefix("rl");
    await new RedisRateLimiter(a, { capacity: 2, refillPerSec: 1 }, prefix).take("agent", 1000);
    const ttl = await a.pttl(`${prefix}ratelimit:availability:agent`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(2000);
  });

  it("reports a Redis that does not answer as the store being unavailable (503 at the edge)", async () => {
    const dead = new Redis("redis://127.0.0.1:1", {
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
    });
    dead.on("error", () => undefined);
    const limiter = new RedisRateLimiter(dead, { capacity: 1, refillPerSec: 1 });
    await expect(limiter.take("agent", 1)).rejects.toBeInstanceOf(HoldStoreUnavailableError);
    dead.disconnect();
  });
});
