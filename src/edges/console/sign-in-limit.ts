/**
 * Failed console sign-ins, counted per network origin (the client address as origin-limit.ts
 * keys it, an IPv6 client by its /64): at most `maxFailures` within `windowMs` of the first one;
 * past that, sign-in from that origin is refused with 429 and Retry-After before any credential
 * is compared, until the window ends.
 *
 * An attempt is counted BEFORE its credential is checked, in one atomic step that also says
 * whether it may go on (`attempt`), so any number of parallel tries — in one process or across
 * replicas — gets at most `maxFailures` checks per window. A success gives its count back
 * (`succeeded`), so only failures stay counted and an operator who signs in often is never
 * locked out; a success does not reset the count (it would let a guesser who also holds a
 * session keep guessing). An attempt refused for being over the limit is not counted.
 *
 * Memory in the embedded default; Redis (one Lua script: read, INCR, PEXPIRE; one key per
 * origin under the gateway's prefix, so one slot on a cluster) when the gateway has Redis, so
 * replicas share one count.
 */
import type { RedisClient } from "../../redis/client.js";
import { redisKeys, type RedisKeyspace } from "../../redis/keys.js";
import { evalScript, redisScript } from "../../redis/script.js";
import type { Clock } from "../../protocol/clock.js";

export interface SignInLimitPolicy {
  readonly maxFailures: number;
  readonly windowMs: number;
}

/** 5 wrong credentials per 15 minutes per origin: ample for typos, nothing for guessing. */
export const DEFAULT_SIGN_IN_LIMIT: SignInLimitPolicy = { maxFailures: 5, windowMs: 15 * 60_000 };

export interface SignInLimiter {
  /**
   * Counts one attempt from `origin` and says whether it may be checked: 0 when it may (it
   * stays counted as a failure unless `succeeded` gives it back), else milliseconds until the
   * origin may try again (nothing is counted then).
   */
  attempt(origin: string): Promise<number>;
  /** The attempt just checked was right: its count is given back. */
  succeeded(origin: string): Promise<void>;
}

export class MemorySignInLimiter implements SignInLimiter {
  private readonly windows = new Map<string, { count: number; until: number }>();

  constructor(
    private readonly clock: Clock,
    private readonly policy: SignInLimitPolicy = DEFAULT_SIGN_IN_LIMIT,
  ) {}

  // Synchronous inside: no other attempt can run between the read and the count.
  attempt(origin: string): Promise<number> {
    const w = this.live(origin);
    if (w === undefined) {
      if (this.windows.size >= 4096) this.sweep();
      this.windows.set(origin, { count: 1, until: this.clock.now() + this.policy.windowMs });
      return Promise.resolve(0);
    }
    if (w.count >= this.policy.maxFailures) return Promise.resolve(Math.max(1, w.until - this.clock.now()));
    w.count += 1;
    return Promise.resolve(0);
  }

  succeeded(origin: string): Promise<void> {
    const w = this.live(origin);
    if (w !== undefined && w.count > 0) w.count -= 1;
    return Promise.resolve();
  }

  private live(origin: string): { count: number; until: number } | undefined {
    const w = this.windows.get(origin);
    if (w !== undefined && this.clock.now() >= w.until) {
      this.windows.delete(origin);
      return undefined;
    }
    return w;
  }

  private sweep(): void {
    const at = this.clock.now();
    for (const [k, w] of this.windows) if (at >= w.until) this.windows.delete(k);
  }
}

// KEYS: the origin's count. ARGV: maxFailures, windowMs. Returns 0 (counted, go on) or the
// window's remaining ms (refused, not counted). A key left without a TTL gets one here.
const ATTEMPT = redisScript(
  "console-sign-in-attempt",
  `
local count = tonumber(redis.call('GET', KEYS[1]) or '0')
local ttl = redis.call('PTTL', KEYS[1])
if count >= tonumber(ARGV[1]) then
  if ttl < 0 then
    redis.call('PEXPIRE', KEYS[1], ARGV[2])
    return tonumber(ARGV[2])
  end
  return math.max(1, ttl)
end
redis.call('INCR', KEYS[1])
if ttl < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
`,
);

// KEYS: the origin's count. Gives one back only inside a live window (never below zero, never
// a key without a TTL).
const SUCCEEDED = redisScript(
  "console-sign-in-succeeded",
  `
local count = tonumber(redis.call('GET', KEYS[1]) or '0')
if count > 0 and redis.call('PTTL', KEYS[1]) > 0 then redis.call('DECR', KEYS[1]) end
return 1
`,
);

/** The window is Redis's own TTL (wall time): replicas agree on it whatever their clocks. */
export class RedisSignInLimiter implements SignInLimiter {
  readonly #keys: RedisKeyspace;

  constructor(
    private readonly redis: RedisClient,
    prefix: string,
    private readonly policy: SignInLimitPolicy = DEFAULT_SIGN_IN_LIMIT,
  ) {
    this.#keys = redisKeys(prefix);
  }

  async attempt(origin: string): Promise<number> {
    const answer = await evalScript(
      this.redis,
      ATTEMPT,
      [this.#key(origin)],
      [this.policy.maxFailures, this.policy.windowMs],
    );
    return Number(answer);
  }

  async succeeded(origin: string): Promise<void> {
    await evalScript(this.redis, SUCCEEDED, [this.#key(origin)], []);
  }

  #key(origin: string): string {
    return this.#keys.key("console", "sign-in-failures", origin);
  }
}
