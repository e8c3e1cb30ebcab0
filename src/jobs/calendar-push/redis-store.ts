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
import { randomBytes } from "node:crypto";
import type { RedisClient } from "../../redis/client.js";
import { evalScript, redisScript } from "../../redis/script.js";
import type { PushStore, Release } from "./store.js";
import type { PushEntry } from "./types.js";

/** Deletes the lock only if it is still ours (it may have lapsed and been taken since). */
const RELEASE = redisScript(
  "calendar-push-release",
  `if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("DEL", KEYS[1]) end return 0`,
);

export class RedisPushStore implements PushStore {
  readonly shared = true;

  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
  ) {}

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
    const key = `${this.#key(hostId)}-lock`;
    const mine = randomBytes(12).toString("base64url");
    const set = await this.redis.set(key, mine, "PX", ttlMs, "NX");
    if (set === null) return undefined;
    return async () => {
      await evalScript(this.redis, RELEASE, [key], [mine]);
    };
  }

  #key(hostId: string): string {
    return `${this.prefix}{${hostId}}:push`;
  }
}
