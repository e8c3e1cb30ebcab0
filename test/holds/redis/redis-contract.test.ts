/** The shared hold store contract, run against RedisHoldStore on a real Redis (§4.1, §7, §10). */
import { afterAll, beforeAll } from "vitest";
import { createRedisGatewayStore } from "../../../src/holds/redis/index.js";
import { dropPrefix, startTestRedis, type TestRedis, uniquePrefix } from "../../support/redis.js";
import { holdStoreContract } from "../contract/hold-store-contract.js";

let redis: TestRedis | undefined;
beforeAll(async () => {
  redis = await startTestRedis();
});
afterAll(async () => {
  await redis?.stop();
});

holdStoreContract("RedisHoldStore", async () => {
  if (redis === undefined) throw new Error("no test Redis");
  const keyPrefix = uniquePrefix("contract");
  const store = await createRedisGatewayStore({ url: redis.url, keyPrefix });
  return {
    store,
    cleanup: async () => {
      await dropPrefix(store.redis, keyPrefix);
      await store.close();
    },
  };
});
