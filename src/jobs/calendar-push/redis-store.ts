/**
 * The push store on Redis, shared by every gateway process. Keys sit in the host's hash slot,
 * like the hold store's (src/holds/redis/keys.ts: `<prefix>{<hostId>}:`), under names that
 * layout does not use:
 *
 *   <p>{h}:push        HASH    notification id (channel / subscription id) -> JSON PushEntry
 *   <p>{h}:push-lock   STRING  the process opening or renewing the host's channels (SET NX PX)
 *
 * The entries hold the channel tokens and clientStates: secrets, as the hold store's records
 * are; they are never logged.
 */
import type { RedisClient } from "../../redis/client.js";
import { redisKeys, type RedisKeyspace } from "../../redis/keys.js";
import { acquireLock } from "../../redis/lock.js";
import type { PushStore, Release } from "./store.js";
import type { PushEntry } from "./types.js";

export class RedisPushStore implements PushStore {
  readonly shared = true;

  readonly #keys: RedisKeyspace;

  constructor(
    private readonly redis: RedisClient,
    prefix: string,
  ) {
    this.#keys = redisKeys(prefix);
  }

  async list(hostId: string): Promise<readonly PushEntry[]> {
    const all = await this.redis.hvals(this.#key(hostId));
    return all.map((v) => JSON.parse(v) as PushEntry);
  }
  async get(hostId: string, id: string): Promise<PushEntry | undefined> {
    const raw = await this.redis.hget(this.#key(hostId), id);
    return raw === null ? undefined : (JSON.parse(raw) as PushEntry);
  }
  async put(hostId: string, entry: PushEntry): Promise<void> {
    await this.redis.hset(this.#key(hostId), entry.id, JSON.stringify(entry));
  }
  async delete(hostId: string, id: string): Promise<void> {
    await this.redis.hdel(this.#key(hostId), id);
  }
  async lock(hostId: string, ttlMs: number): Promise<Release | undefined> {
    // Released only while still ours: it may have lapsed and been taken since (redis/lock.ts).
    const lease = await acquireLock(this.redis, this.#keys.hostKey(hostId, "push-lock"), ttlMs);
    if (lease === undefined) return undefined;
    return async () => {
      await lease.release();
    };
  }

  #key(hostId: string): string {
    return this.#keys.hostKey(hostId, "push");
  }
}
