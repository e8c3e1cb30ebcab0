/**
 * What the §5.12 core tests (meetings.test.ts, revisions.test.ts) share: a person's calendar in
 * the booking world (kind "person", host_approval, its owner named), and the same world on a
 * Redis store of its own (each under its own key prefix, dropped after the file).
 */
import { afterAll, beforeAll } from "vitest";
import type { HostConfig } from "../../../src/booking/api.js";
import { storeBookingIndex } from "../../../src/booking/bookings/booking-index.js";
import { createRedisGatewayStore, type RedisHoldStore } from "../../../src/holds/redis/index.js";
import { jwkThumbprint, principalUrn } from "../../../src/protocol/jose/index.js";
import { dropPrefix, startTestRedis, uniquePrefix, type TestRedis } from "../../support/redis.js";
import { makeHost, type Party, type TestHost, type World } from "../bookings/world.js";

export const principalOf = (p: Party): string => principalUrn(jwkThumbprint(p.principal.publicJwk));

/** A person's own calendar (§7.7): asks its person, owned by `owner`. */
export function personHost(id: string, owner: Party): TestHost {
  const h = makeHost(id, id, { confirmation: "host_approval" });
  const config: HostConfig = { ...h.runtime.config, kind: "person", owner: principalOf(owner) };
  return { ...h, runtime: { ...h.runtime, config } };
}

/**
 * Starts a Redis server for the calling file (its beforeAll and afterAll); `onRedis` moves a
 * world onto a store of that server under a fresh prefix.
 */
export function redisWorlds(name: string): {
  onRedis(base: World): Promise<{ w: World; store: RedisHoldStore; prefix: string }>;
} {
  let redis: TestRedis | undefined;
  const opened: Array<{ store: RedisHoldStore; prefix: string }> = [];
  beforeAll(async () => {
    redis = await startTestRedis();
  });
  afterAll(async () => {
    for (const { store, prefix } of opened) {
      await dropPrefix(store.redis, prefix);
      await store.close();
    }
    await redis?.stop();
  });
  return {
    async onRedis(base) {
      if (redis === undefined) throw new Error("Redis has not started");
      const prefix = uniquePrefix(name);
      const store = await createRedisGatewayStore({ url: redis.url, keyPrefix: prefix });
      opened.push({ store, prefix });
      const w = {
        ...base,
        store: store as never,
        deps: { ...base.deps, store, bookingIndex: storeBookingIndex(store) },
      } as World;
      return { w, store, prefix };
    },
  };
}
