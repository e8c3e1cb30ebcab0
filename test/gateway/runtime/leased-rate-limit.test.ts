/**
 * The availability bucket leased a batch at a time from the shared Redis bucket (SchCP §7.2:
 * one allowance per agent key across processes): most takes make no Redis call, and the shared
 * limit still binds across two gateway processes (two clients, two limiters).
 */
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LeasedRateLimiter, type SharedTokenBucket } from "../../../src/edges/http/leased-rate-limit.js";
import { takeTokens, type TokenBucketPolicy } from "../../../src/edges/http/rate-limit.js";
import { RedisRateLimiter } from "../../../src/gateway/runtime/redis-rate-limit.js";
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

/** Counts the calls that reach the shared bucket. */
function counted(shared: RedisRateLimiter): SharedTokenBucket & { calls: number } {
  const out = {
    calls: 0,
    policy: shared.policy,
    takeUpTo(key: string, now: number, want: number) {
      out.calls++;
      return shared.takeUpTo(key, now, want);
    },
  };
  return out;
}

describe("LeasedRateLimiter over the Redis bucket", () => {
  it("binds the shared limit across two processes, within one lease each, with few Redis calls", async () => {
    const prefix = uniquePrefix("lease");
    const policy: TokenBucketPolicy = { capacity: 300, refillPerSec: 0.001 };
    const oneShared = counted(new RedisRateLimiter(a, policy, prefix));
    const twoShared = counted(new RedisRateLimiter(b, policy, prefix));
    const one = new LeasedRateLimiter(oneShared);
    const two = new LeasedRateLimiter(twoShared);
    expect(one.batch).toBe(30);
    const now = 9_000_000;
    // 1,000 concurrent takes spread over both processes, all at the same moment.
    const answers = await Promise.all(
      Array.from({ length: 1000 }, (_, i) => (i % 3 === 0 ? two : one).take("agent", now)),
    );
    const granted = answers.filter((x) => x.ok).length;
    // Never more than the shared bucket holds; less by at most one process's unspent lease.
    expect(granted).toBeLessThanOrEqual(policy.capacity);
    expect(granted).toBeGreaterThanOrEqual(policy.capacity - (one.batch - 1));
    // Most takes were served from a lease.
    expect(oneShared.calls + twoShared.calls).toBeLessThan(60);
    const refused = answers.find((x) => !x.ok);
    expect(refused).toMatchObject({ ok: false });
    expect(refused?.ok === false && refused.error.retryAfterMs).toBeGreaterThan(0);
  });

  it("refuses in every process once the shared bucket is spent, and lets the refill through", async () => {
    const prefix = uniquePrefix("lease");
    const policy: TokenBucketPolicy = { capacity: 30, refillPerSec: 1 };
    const one = new LeasedRateLimiter(new RedisRateLimiter(a, policy, prefix));
    const two = new LeasedRateLimiter(new RedisRateLimiter(b, policy, prefix));
    const now = 11_000_000;
    let granted = 0;
    for (let i = 0; i < 60; i++) if ((await (i % 2 === 0 ? one : two).take("k", now)).ok) granted++;
    expect(granted).toBeLessThanOrEqual(30);
    expect(granted).toBeGreaterThanOrEqual(30 - 2 * (one.batch - 1));
    // Three seconds later three tokens are back, shared by both.
    let later = 0;
    for (let i = 0; i < 10; i++) if ((await (i % 2 === 0 ? one : two).take("k", now + 3_000)).ok) later++;
    expect(later).toBeLessThanOrEqual(3);
    expect(later).toBeGreaterThanOrEqual(1);
  });

  it("keeps buckets of different keys apart", async () => {
    const prefix = uniquePrefix("lease");
    const one = new LeasedRateLimiter(new RedisRateLimiter(a, { capacity: 10, refillPerSec: 0.001 }, prefix));
    const now = 12_000_000;
    for (let i = 0; i < 10; i++) expect((await one.take("x", now)).ok).toBe(true);
    expect((await one.take("x", now)).ok).toBe(false);
    expect((await one.take("y", now)).ok).toBe(true);
  });

  it("reports a shared bucket that does not answer, as the Redis bucket alone did", async () => {
    const failing: SharedTokenBucket = {
      policy: { capacity: 30, refillPerSec: 1 },
      takeUpTo: () => Promise.reject(new Error("down")),
    };
    await expect(new LeasedRateLimiter(failing).take("k", 1)).rejects.toThrow("down");
  });

  it("spends a lapsed lease's tokens no more", async () => {
    let bucket: { tokens: number; at: number } | undefined;
    const policy = { capacity: 100, refillPerSec: 0.001 };
    const shared: SharedTokenBucket = {
      policy,
      takeUpTo(_key, now, want) {
        const t = takeTokens(bucket, policy, now, want);
        bucket = t.bucket;
        return Promise.resolve({ granted: t.granted, retryAfterMs: t.retryAfterMs });
      },
    };
    const limiter = new LeasedRateLimiter(shared, { leaseMs: 1_000 });
    expect((await limiter.take("k", 0)).ok).toBe(true); // leases 10, spends 1
    expect(bucket!.tokens).toBeCloseTo(90);
    expect((await limiter.take("k", 2_000)).ok).toBe(true); // the old lease lapsed: a new one
    expect(bucket!.tokens).toBeCloseTo(80, 0);
  });
});
