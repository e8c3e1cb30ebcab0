/**
 * The shared hold store contract (§4.1, §7, §10) on a Redis Cluster: RedisHoldStore
 * through ioredis' Cluster client, three masters with a replica each. Every per-host key carries
 * the host's hash tag, so each host's scripts run whole on the shard that owns it; the
 * cross-host keys (nonces, idempotency, reputation, the hosts set) land on whichever shard
 * their own slot names.
 */
import { afterAll, beforeAll } from "vitest";
import { createRedisGatewayStore } from "../../../src/holds/redis/index.js";
import { dropPrefix, uniquePrefix } from "../../support/redis.js";
import { startTestRedisCluster, type TestRedisCluster } from "../../support/redis-cluster.js";
import { holdStoreContract } from "../contract/hold-store-contract.js";

let cluster: TestRedisCluster | undefined;
beforeAll(async () => {
  cluster = await startTestRedisCluster();
}, 60_000);
afterAll(async () => {
  await cluster?.stop();
});

holdStoreContract("RedisHoldStore on a Redis Cluster", async () => {
  if (cluster === undefined) throw new Error("no test Redis Cluster");
  const keyPrefix = uniquePrefix("cluster-contract");
  const store = await createRedisGatewayStore({ url: cluster.url, keyPrefix });
  return {
    store,
    cleanup: async () => {
      await dropPrefix(store.redis, keyPrefix);
      await store.close();
    },
  };
});
