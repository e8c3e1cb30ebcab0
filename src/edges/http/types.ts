/**
 * The type every HTTP edge's rate limits share: the token-bucket limiter they are built on
 * (rate-limit.ts in memory, leased-rate-limit.ts over a shared bucket). The operator log is the
 * one Logger of src/protocol/logger.ts.
 */

import type { Result } from "../../protocol/result.js";

/** An empty bucket: how long until a token is back. */
export interface RateLimited {
  readonly retryAfterMs: number;
}

/**
 * A token bucket per key (SchCP §7.2: availability queries per agent key, and every request
 * per network origin; A2A's abuse limits use the same).
 */
export interface RateLimiter {
  /** Takes one token from `key`'s bucket; when empty, how long until one is back. */
  take(key: string, nowMs: number): Promise<Result<undefined, RateLimited>>;
}
