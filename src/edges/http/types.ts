/**
 * The type every HTTP edge's rate limits share: the token-bucket limiter they are built on
 * (rate-limit.ts in memory, leased-rate-limit.ts over a shared bucket). The operator log is the
 * one Logger of src/protocol/logger.ts.
 */

/**
 * A token bucket per key (SchCP §7.2: availability queries per agent key, and every request
 * per network origin; A2A's abuse limits use the same).
 */
export interface RateLimiter {
  /** Takes one token from `key`'s bucket; when empty, how long until one is back. */
  take(
    key: string,
    nowMs: number,
  ): Promise<{ readonly ok: true } | { readonly ok: false; readonly retryAfterMs: number }>;
}
