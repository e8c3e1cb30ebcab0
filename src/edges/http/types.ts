/**
 * The types every HTTP edge shares: the operator log and the token-bucket limiter the rate
 * limits are built on (rate-limit.ts in memory, leased-rate-limit.ts over a shared bucket).
 */

/** Structured log lines for operators; never carries secrets or request bodies. */
export interface Logger {
  info(message: string, fields?: Readonly<Record<string, unknown>>): void;
  warn(message: string, fields?: Readonly<Record<string, unknown>>): void;
  error(message: string, fields?: Readonly<Record<string, unknown>>): void;
}

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
