/**
 * Upstream "not before" times (connectors/http/pacing.ts) in Redis, so a Retry-After one
 * gateway process was given holds back every process sharing the Redis. One key per upstream
 * account, holding the epoch ms it may be called again and expiring then; a later time only
 * ever replaces an earlier one (one script, so two processes heeding two 429s keep the later).
 *
 * Redis is advisory here: when it does not answer, the process's own gate still holds its own
 * callers back, and the upstream's next 429 says the rest. A pacing read never fails a call.
 */
import type { RedisClient } from "../../redis/client.js";
import { redisKeys, type RedisKeyspace } from "../../redis/keys.js";
import { evalScript, redisScript } from "../../redis/script.js";
import { MAX_PACING_MS, MemoryPacingGate, type PacingGate } from "../../connectors/http/pacing.js";

// KEYS[1] the account's key. ARGV: until (epoch ms), ttl (ms). Keeps the later of two times.
const DEFER = redisScript(
  "pacing-defer",
  `
local current = tonumber(redis.call('GET', KEYS[1]))
if current ~= nil and current >= tonumber(ARGV[1]) then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1
`,
);

export class RedisPacingGate implements PacingGate {
  readonly #local = new MemoryPacingGate();
  readonly #keys: RedisKeyspace;

  constructor(
    private readonly redis: RedisClient,
    keyPrefix?: string,
    private readonly onError?: (error: unknown) => void,
  ) {
    this.#keys = redisKeys(keyPrefix);
  }

  #key(key: string): string {
    return this.#keys.key("pacing", key);
  }

  async notBefore(key: string, now: number): Promise<number | undefined> {
    const local = await this.#local.notBefore(key, now);
    let shared: number | undefined;
    try {
      const value = await this.redis.get(this.#key(key));
      const until = value === null ? NaN : Number(value);
      shared = Number.isFinite(until) && until > now ? until : undefined;
    } catch (error) {
      this.onError?.(error);
    }
    if (local === undefined) return shared;
    return shared === undefined ? local : Math.max(local, shared);
  }

  async defer(key: string, until: number, now: number): Promise<void> {
    const bounded = Math.min(until, now + MAX_PACING_MS);
    await this.#local.defer(key, bounded, now);
    const ttl = Math.max(1, Math.ceil(bounded - now));
    try {
      await evalScript(this.redis, DEFER, [this.#key(key)], [String(bounded), String(ttl)]);
    } catch (error) {
      this.onError?.(error);
    }
  }
}
