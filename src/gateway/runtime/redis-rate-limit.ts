/**
 * The availability token bucket (SchCP §7.2) in Redis, so one agent key has one allowance
 * across every host AND every gateway process sharing the Redis; the same script keeps the
 * per-network-origin bucket (src/edges/http/origin-limit.ts) shared the same way. The same refill rule as
 * the in-process bucket (src/edges/http/rate-limit.ts takeToken), as one Lua script so
 * concurrent takes cannot both spend the last token. The key expires once the bucket would
 * be full again, so idle agents cost nothing. A process spends it through a lease of a few
 * tokens at a time (src/edges/http/leased-rate-limit.ts), so most requests make no call here.
 */
import type { RedisClient } from "../../redis/client.js";
import { redisKeys, type RedisKeyspace } from "../../redis/keys.js";
import { evalScript, redisScript } from "../../redis/script.js";
import { HoldStoreUnavailableError } from "../../holds/port.js";
import type { TokenBucketPolicy } from "../../edges/http/rate-limit.js";
import type { SharedTokenBucket } from "../../edges/http/leased-rate-limit.js";
import { err, ok, type Result } from "../../protocol/result.js";
import type { RateLimited, RateLimiter } from "../../edges/http/types.js";

// KEYS[1] bucket. ARGV: now (ms), capacity, refill per second, tokens wanted (default 1).
// Returns {granted, retryAfterMs}: as many whole tokens as the bucket holds up to those wanted
// (takeTokens in src/edges/http/rate-limit.ts), or 0 and how long until one is back.
// Called by SHA (src/redis/script.ts): the origin bucket runs on every host-endpoint request.
const TAKE = redisScript(
  "rate-limit-take",
  `
local now = tonumber(ARGV[1])
local capacity = tonumber(ARGV[2])
local rate = tonumber(ARGV[3])
local state = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(state[1]) or capacity
local at = tonumber(state[2]) or now
local elapsed = now - at
if elapsed < 0 then elapsed = 0 end
tokens = math.min(capacity, tokens + elapsed / 1000 * rate)
local want = math.max(1, math.floor(tonumber(ARGV[4]) or 1))
local ok = 0
local retry = 0
if tokens >= 1 then
  ok = math.min(want, math.floor(tokens))
  tokens = tokens - ok
else
  retry = math.ceil((1 - tokens) / rate * 1000)
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', tostring(now))
redis.call('PEXPIRE', KEYS[1], math.ceil((capacity - tokens) / rate * 1000) + 1000)
return {ok, retry}
`,
);

export class RedisRateLimiter implements RateLimiter, SharedTokenBucket {
  readonly #keys: RedisKeyspace;

  constructor(
    private readonly redis: RedisClient,
    readonly policy: TokenBucketPolicy,
    keyPrefix?: string,
    /** Which allowance: "availability" (per agent key) or "origin" (per network origin, §7.2). */
    private readonly bucket = "availability",
  ) {
    this.#keys = redisKeys(keyPrefix);
  }

  async take(key: string, nowMs: number): Promise<Result<undefined, RateLimited>> {
    const taken = await this.takeUpTo(key, nowMs, 1);
    return taken.granted >= 1 ? ok(undefined) : err({ retryAfterMs: taken.retryAfterMs });
  }

  /** Up to `want` tokens at once, for a process's lease (LeasedRateLimiter). */
  async takeUpTo(
    key: string,
    nowMs: number,
    want: number,
  ): Promise<{ granted: number; retryAfterMs: number }> {
    let reply: [number, number];
    try {
      reply = (await evalScript(
        this.redis,
        TAKE,
        [this.#keys.key("ratelimit", this.bucket, key)],
        [String(nowMs), String(this.policy.capacity), String(this.policy.refillPerSec), String(want)],
      )) as [number, number];
    } catch (error) {
      // The edge answers the store's infrastructure error with 503 and Retry-After.
      throw new HoldStoreUnavailableError("rate limiter: Redis did not answer", { cause: error });
    }
    return { granted: Number(reply[0]), retryAfterMs: Number(reply[1]) };
  }
}
