/**
 * Every Redis store's key names on a Redis Cluster (test/redis/key-pins.ts): the same names as
 * on one server, but for those a store chooses by the kind of client (managed hosts).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openRedis, type RedisClient } from "../../src/redis/client.js";
import { dropPrefix, uniquePrefix } from "../support/redis.js";
import { startTestRedisCluster, type TestRedisCluster } from "../support/redis-cluster.js";
import { PIN_CASES, recording } from "./key-pins.js";

let cluster: TestRedisCluster;
let raw: RedisClient;
const P = uniquePrefix("keys-cluster");
const recorded = new Set<string>();

beforeAll(async () => {
  cluster = await startTestRedisCluster();
  raw = openRedis(cluster.url);
}, 60_000);
afterAll(async () => {
  // Every name starts with the prefix; one outside it would be a pin's failure, and is
  // deleted all the same (one by one: one slot per command).
  for (const key of recorded) if (!key.startsWith(P)) await raw.del(key);
  await dropPrefix(raw, P);
  await raw.quit();
  await cluster.stop();
});

describe("Redis key names (cluster)", () => {
  for (const pin of PIN_CASES) {
    it(pin.store, async () => {
      const seen = new Set<string>();
      await pin.run(recording(raw, seen), P, raw);
      for (const key of seen) recorded.add(key);
      expect([...seen].sort()).toEqual([...pin.keys(P, true)].sort());
      // Every name starts with REDIS_KEY_PREFIX, so `<prefix>*` finds all a deployment wrote.
      expect([...seen].filter((key) => !key.startsWith(P))).toEqual([]);
    });
  }
});
