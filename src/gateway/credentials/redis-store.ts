/**
 * Sealed token records in Redis, so every gateway process on one Redis refreshes into and
 * reads from the same grant (a Microsoft refresh rotates the refresh token: a process holding
 * only its own copy would go on refreshing with a stale one).
 *
 * One string key per host, `<prefix>credentials:{<host id>}`: the hash tag keeps each host's
 * key in one Redis Cluster slot by host, beside nothing else, and the prefix is the gateway's
 * REDIS_KEY_PREFIX so several gateways can share a Redis. The value is the sealed JSON only.
 * `list()` walks with SCAN (never KEYS), for rotate(); on a Redis Cluster SCAN sees one node,
 * so it walks every master (hosts' keys spread over the shards).
 */
import { eachMaster, type RedisClient } from "../../redis/client.js";
import { hashTag, redisKeys, type RedisKeyspace } from "../../redis/keys.js";
import { checkHostId, type SealedStore } from "./store.js";

export class RedisSealedStore implements SealedStore {
  readonly #keys: RedisKeyspace;

  constructor(
    private readonly redis: RedisClient,
    prefix?: string,
  ) {
    this.#keys = redisKeys(prefix);
  }

  key(hostId: string): string {
    checkHostId(hostId);
    return this.#keys.key("credentials", hashTag(hostId));
  }

  async read(hostId: string): Promise<string | undefined> {
    return (await this.redis.get(this.key(hostId))) ?? undefined;
  }

  async write(hostId: string, sealed: string): Promise<void> {
    await this.redis.set(this.key(hostId), sealed);
  }

  async delete(hostId: string): Promise<void> {
    await this.redis.del(this.key(hostId));
  }

  async list(): Promise<string[]> {
    const head = this.#keys.key("credentials", "{");
    const pattern = `${head.replace(/[*?[\]\\]/g, "\\$&")}*}`;
    const hosts = new Set<string>();
    await eachMaster(this.redis, async (node) => {
      let cursor = "0";
      do {
        const [next, keys] = await node.scan(cursor, "MATCH", pattern, "COUNT", 200);
        cursor = next;
        for (const k of keys) if (k.startsWith(head) && k.endsWith("}")) hosts.add(k.slice(head.length, -1));
      } while (cursor !== "0");
    });
    return [...hosts].sort();
  }
}
