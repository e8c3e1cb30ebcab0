/**
 * Failed console sign-ins, counted per network origin (the client address as origin-limit.ts
 * keys it, an IPv6 client by its /64): after `maxFailures` within `windowMs` of the first one,
 * sign-in from that origin is refused with 429 and Retry-After before any credential is
 * compared, until the window ends. Only failures count, so an operator who signs in often is
 * never locked out; a success does not reset the count (it would let a guesser who also holds
 * a session keep guessing). Memory in the embedded default; Redis (INCR + PEXPIRE under the
 * gateway's prefix) when the gateway has Redis, so replicas share one count.
 */
import type { RedisClient } from "../../redis/client.js";

export interface SignInLimitPolicy {
  readonly maxFailures: number;
  readonly windowMs: number;
}

/** 5 wrong credentials per 15 minutes per origin: ample for typos, nothing for guessing. */
export const DEFAULT_SIGN_IN_LIMIT: SignInLimitPolicy = { maxFailures: 5, windowMs: 15 * 60_000 };

export interface SignInLimiter {
  /** 0 when `origin` may try; else milliseconds until it may. */
  blockedFor(origin: string): Promise<number>;
  /** Counts one failure. */
  failed(origin: string): Promise<void>;
}

export class MemorySignInLimiter implements SignInLimiter {
  private readonly windows = new Map<string, { count: number; until: number }>();

  constructor(
    private readonly now: () => number,
    private readonly policy: SignInLimitPolicy = DEFAULT_SIGN_IN_LIMIT,
  ) {}

  blockedFor(origin: string): Promise<number> {
    const w = this.live(origin);
    return Promise.resolve(w !== undefined && w.count >= this.policy.maxFailures ? w.until - this.now() : 0);
  }

  failed(origin: string): Promise<void> {
    const w = this.live(origin);
    if (w === undefined) {
      if (this.windows.size >= 4096) this.sweep();
      this.windows.set(origin, { count: 1, until: this.now() + this.policy.windowMs });
    } else w.count += 1;
    return Promise.resolve();
  }

  private live(origin: string): { count: number; until: number } | undefined {
    const w = this.windows.get(origin);
    if (w !== undefined && this.now() >= w.until) {
      this.windows.delete(origin);
      return undefined;
    }
    return w;
  }

  private sweep(): void {
    const at = this.now();
    for (const [k, w] of this.windows) if (at >= w.until) this.windows.delete(k);
  }
}

/** The window is Redis's own TTL (wall time): replicas agree on it whatever their clocks. */
export class RedisSignInLimiter implements SignInLimiter {
  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
    private readonly policy: SignInLimitPolicy = DEFAULT_SIGN_IN_LIMIT,
  ) {}

  async blockedFor(origin: string): Promise<number> {
    const key = this.#key(origin);
    const [count, ttl] = await Promise.all([this.redis.get(key), this.redis.pttl(key)]);
    return count !== null && Number(count) >= this.policy.maxFailures && ttl > 0 ? ttl : 0;
  }

  async failed(origin: string): Promise<void> {
    const key = this.#key(origin);
    const count = await this.redis.incr(key);
    // The first failure opens the window; a key left without a TTL (a crash between the two
    // commands) gets one on the next failure.
    if (count === 1 || (await this.redis.pttl(key)) < 0) await this.redis.pexpire(key, this.policy.windowMs);
  }

  #key(origin: string): string {
    return `${this.prefix}console:sign-in-failures:${origin}`;
  }
}
