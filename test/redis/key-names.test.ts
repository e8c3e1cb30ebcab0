/**
 * Every Redis store's key names, pinned for a sample prefix and host on one server
 * (test/redis/key-pins.ts says why and lists them); the hold store's layout
 * (src/holds/redis/keys.ts) and the prefixes the gateway gives BullMQ and the jobs' lock.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bullmqPrefix } from "../../src/gateway/runtime/options.js";
import { RedisKeys } from "../../src/holds/redis/keys.js";
import { RedisTaskLock, taskLockPrefix } from "../../src/jobs/maintenance/redis-lock.js";
import { openRedis, type RedisClient } from "../../src/redis/client.js";
import { dropPrefix, startTestRedis, type TestRedis, uniquePrefix } from "../support/redis.js";
import { PIN_CASES, recording } from "./key-pins.js";

let server: TestRedis;
let raw: RedisClient;
const P = uniquePrefix("keys");

beforeAll(async () => {
  server = await startTestRedis();
  raw = openRedis(server.url);
});
afterAll(async () => {
  await dropPrefix(raw, P);
  await raw.quit();
  await server.stop();
});

describe("Redis key names (one server)", () => {
  for (const pin of PIN_CASES) {
    it(pin.store, async () => {
      const seen = new Set<string>();
      await pin.run(recording(raw, seen), P, raw);
      expect([...seen].sort()).toEqual([...pin.keys(P, false)].sort());
      // Every name starts with REDIS_KEY_PREFIX, so `<prefix>*` finds all a deployment wrote.
      expect([...seen].filter((key) => !key.startsWith(P))).toEqual([]);
    });
  }

  it("periodic jobs' lock (jobs/maintenance/redis-lock.ts, with the prefix gateway/runtime/workers.ts gives it)", async () => {
    const prefix = taskLockPrefix(P);
    // Moved under the prefix (it was `{<p>jobs}:lock:`): a lease lives 5 minutes at most, so
    // nothing is left behind by the move.
    expect(prefix).toBe(`${P}{${P}jobs}:lock:`);
    expect(taskLockPrefix()).toBe("schcp:{schcp:jobs}:lock:");
    const lock = new RedisTaskLock({ redisUrl: server.url, prefix });
    try {
      expect(await lock.acquire("sweeper", 5_000)).not.toBeNull();
      expect(await raw.pttl(`${P}{${P}jobs}:lock:sweeper`)).toBeGreaterThan(0);
    } finally {
      await lock.close();
    }
  });

  it("BullMQ's prefix (gateway/runtime/options.ts)", () => {
    // Moved under the prefix (it was `{<p>bullmq}`); README, Redis key prefix, says what becomes
    // of jobs queued under the earlier one.
    expect(bullmqPrefix({ redisKeyPrefix: "p:" })).toBe("p:{p:bullmq}");
    expect(bullmqPrefix({})).toBe("schcp:{schcp:bullmq}");
  });

  it("the hold store's layout (holds/redis/keys.ts)", () => {
    const k = new RedisKeys("p:");
    expect(k.host("h1")).toBe("p:{h1}:");
    expect(k.hold("h1", "hd1")).toBe("p:{h1}:hold:hd1");
    expect(k.occupancy("h1", "r1")).toBe("p:{h1}:occ:r1");
    expect(k.busy("h1", "r1")).toBe("p:{h1}:busy:r1");
    expect(k.agentType("h1", "chair")).toBe("p:{h1}:agt:chair");
    expect(k.holdExpiry("h1")).toBe("p:{h1}:hexp");
    expect(k.lease("h1")).toBe("p:{h1}:lease");
    expect(k.agent("h1", "ag")).toBe("p:{h1}:agent:ag");
    expect(k.unproven("h1")).toBe("p:{h1}:pool:unproven");
    expect(k.attester("h1", "att")).toBe("p:{h1}:pool:att:att");
    expect(k.mandate("h1", "iss:x", "j1")).toBe("p:{h1}:mand:5:iss:xj1");
    expect(k.booking("h1", "b1")).toBe("p:{h1}:bk:b1");
    expect(k.bookingIndex("h1")).toBe("p:{h1}:booking-index");
    expect(k.bookingIndexPart("h1", "st:confirmed")).toBe("p:{h1}:bx:st:confirmed");
    expect(k.principalBookings("h1", "pr")).toBe("p:{h1}:pbk:pr");
    expect(k.events("h1")).toBe("p:{h1}:events");
    expect(k.hosts()).toBe("p:hosts");
    expect(k.nonce("kid", "n1")).toBe("p:nonce:3:kidn1");
    expect(k.idempotency("agent", "ik")).toBe("p:idem:5:agentik");
    expect(k.reputation("agent", "a1")).toBe("p:rep:agent:a1");
  });
});
