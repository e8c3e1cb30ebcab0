/**
 * When a failed webhook delivery is tried again. Webhooks are an optimization (SchCP §5.8:
 * agents MUST be able to poll), so retries are bounded: by default 8 attempts over about a
 * day, each wait four times the last (30 s, 2 min, 8 min, 32 min, ~2 h, ~8.5 h, 12 h).
 * The same policy drives the in-process queue and BullMQ's custom backoff.
 */
export interface RetryPolicy {
  /** Attempts in all, the first included. */
  readonly maxAttempts: number;
  /** The wait before the next attempt, after `attemptsMade` (≥ 1) have failed. */
  delayAfter(attemptsMade: number): number;
}

export interface ExponentialBackoffOptions {
  readonly maxAttempts?: number;
  readonly baseMs?: number;
  readonly factor?: number;
  readonly maxDelayMs?: number;
}

export function exponentialBackoff(options: ExponentialBackoffOptions = {}): RetryPolicy {
  const maxAttempts = options.maxAttempts ?? 8;
  const baseMs = options.baseMs ?? 30_000;
  const factor = options.factor ?? 4;
  const maxDelayMs = options.maxDelayMs ?? 12 * 3_600_000;
  if (!Number.isInteger(maxAttempts) || maxAttempts < 1) throw new RangeError("maxAttempts must be ≥ 1");
  return {
    maxAttempts,
    delayAfter: (attemptsMade) =>
      Math.min(maxDelayMs, Math.round(baseMs * factor ** Math.max(0, attemptsMade - 1))),
  };
}

export const DEFAULT_WEBHOOK_RETRY: RetryPolicy = exponentialBackoff();
