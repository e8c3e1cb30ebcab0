/**
 * The Redis refresh lock (scale-out): two gateway processes, each with its own Redis
 * connection, vault and provider, on one real Redis (and on a Redis Cluster), racing to refresh
 * a due grant whose refresh token the endpoint accepts once. Exactly one refresh, both get its
 * token, nobody is told "unauthorized". Then the lock itself: exclusive, per host, released only
 * by its holder, expiring after its TTL, in the host's cluster slot.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isCluster, openRedis, type RedisClient } from "../../../src/redis/client.js";
import { RedisSealedStore } from "../../../src/gateway/credentials/redis-store.js";
import { openVaultFromEnv } from "../../../src/gateway/cli/credentials.js";
import { RedisRefreshLock } from "../../../src/gateway/credentials/refresh-lock.js";
import { createTokenProvider } from "../../../src/gateway/credentials/refresher.js";
import { TokenVault } from "../../../src/gateway/credentials/vault.js";
import type { KeyRing } from "../../../src/gateway/credentials/key-ring.js";
import { startTestRedisCluster, type TestRedisCluster } from "../../support/redis-cluster.js";
import { dropPrefix, startTestRedis, uniquePrefix, type TestRedis } from "../../support/redis.js";
import { lineLogger, rotatingEndpoint, testRing } from "../../support/rotating-token-endpoint.js";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function suite(label: string, start: () => Promise<TestRedis | TestRedisCluster>) {
  describe(label, () => {
    let server: TestRedis | TestRedisCluster;
    const clients: RedisClient[] = [];
    const prefix = uniquePrefix("refresh-lock");
    const connect = () => {
      const c = openRedis(server.url);
      clients.push(c);
      return c;
    };

    beforeAll(async () => {
      server = await start();
    }, 120_000);
    afterAll(async () => {
      if (clients[0] !== undefined) await dropPrefix(clients[0], prefix);
      await Promise.all(clients.map((c) => c.quit().catch(() => c.disconnect())));
      await server?.stop();
    });

    /** One gateway process: its own connection, vault, lock and provider. */
    const gatewayProcess = (
      ring: KeyRing,
      endpoint: ReturnType<typeof rotatingEndpoint>,
      now: () => number,
      log: ReturnType<typeof lineLogger>,
    ) => {
      const redis = connect();
      return createTokenProvider({
        hostId: "salon",
        vault: new TokenVault(ring, new RedisSealedStore(redis, prefix)),
        refreshLock: new RedisRefreshLock(redis, prefix),
        client: { clientId: "c", clientSecret: "s" },
        fetch: endpoint.fetch,
        clock: { now },
        logger: log.logger,
      });
    };

    it("two processes asking at once for a due token: one refresh, one new token, no unauthorized", async () => {
      const ring = testRing();
      let now = Date.parse("2026-12-03T07:00:00Z");
      const endpoint = rotatingEndpoint({ now: () => now, delayMs: 80 });
      const log = lineLogger();
      const vault = new TokenVault(ring, new RedisSealedStore(connect(), prefix));
      await vault.put("salon", endpoint.initial(now));
      const a = gatewayProcess(ring, endpoint, () => now, log);
      const b = gatewayProcess(ring, endpoint, () => now, log);
      for (let round = 1; round <= 5; round++) {
        const got = await Promise.allSettled([a.accessToken(), b.accessToken()]);
        expect(got).toEqual([
          { status: "fulfilled", value: `ACCESS-${round}` },
          { status: "fulfilled", value: `ACCESS-${round}` },
        ]);
        expect(endpoint.calls).toHaveLength(round);
        expect((await vault.get("salon"))?.refreshToken).toBe(`REFRESH-${round}`);
        // Due again: a minute before expiry, inside the refresh margin.
        now = ((await vault.get("salon"))?.expiresAt ?? 0) - 60_000;
      }
      expect(endpoint.refused).toEqual([]);
      expect(log.lines.filter((l) => l.includes("refused for good"))).toEqual([]);
    });

    it("the lock: exclusive per host, released only by its holder, expiring after its TTL", async () => {
      const here = new RedisRefreshLock(connect(), prefix);
      const there = new RedisRefreshLock(connect(), prefix);
      const first = await here.acquire("salon", 10_000);
      expect(first).toBeTypeOf("function");
      expect(await there.acquire("salon", 10_000)).toBeUndefined();
      const other = await there.acquire("studio", 10_000);
      expect(other).toBeTypeOf("function");
      await first?.();
      const second = await there.acquire("salon", 300);
      expect(second).toBeTypeOf("function");
      await first?.(); // a late, second release by the old holder frees nothing
      expect(await here.acquire("salon", 10_000)).toBeUndefined();
      await sleep(450); // the holder died: the TTL frees the lock
      const third = await here.acquire("salon", 10_000);
      expect(third).toBeTypeOf("function");
      await second?.(); // the expired holder's release leaves the new holder's lock
      expect(await there.acquire("salon", 10_000)).toBeUndefined();
      await third?.();
      await other?.();
    });

    it("the vault on Redis comes with the Redis lock under the same prefix", async () => {
      const opened = openVaultFromEnv(
        { TOKEN_KEYS: `k1:${"A".repeat(43)}=` },
        { dataDir: "unused", redisUrl: server.url, redisKeyPrefix: prefix },
      );
      if (!opened.ok || opened.value === undefined) throw new Error("no vault");
      try {
        const lock = opened.value.refreshLock;
        expect(lock).toBeInstanceOf(RedisRefreshLock);
        expect((lock as RedisRefreshLock).key("salon")).toBe(`${prefix}{salon}:oauth-refresh-lock`);
        const release = await lock.acquire("wired", 5_000);
        expect(await new RedisRefreshLock(connect(), prefix).acquire("wired", 5_000)).toBeUndefined();
        await release?.();
      } finally {
        await opened.value.close();
      }
    });

    it("sits in the host's hash slot, beside its credentials key", async () => {
      const redis = connect();
      const lockKey = new RedisRefreshLock(redis, prefix).key("salon");
      const credentialsKey = new RedisSealedStore(redis, prefix).key("salon");
      expect(lockKey).toBe(`${prefix}{salon}:oauth-refresh-lock`);
      const slot = (key: string) => redis.call("CLUSTER", "KEYSLOT", key);
      if (isCluster(redis)) expect(await slot(lockKey)).toBe(await slot(credentialsKey));
    });
  });
}

suite("one Redis", startTestRedis);
suite("a Redis Cluster", startTestRedisCluster);
