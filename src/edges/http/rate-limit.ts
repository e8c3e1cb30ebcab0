/**
 * SchCP §7.2: "Availability queries are rate-limited per agent key (token bucket)" and
 * "[an operator] SHOULD keep one rate allowance per agent key across its tenants, not one per
 * host". The bucket is keyed by the agent key alone, never by host, so one agent gets one
 * allowance however many hosts the gateway serves. This is the in-process bucket; the Redis
 * one (src/gateway/runtime/redis-rate-limit.ts) shares it across gateway processes.
 */
import { err, ok, type Result } from "../../protocol/result.js";
import type { RateLimited, RateLimiter } from "./types.js";

export interface TokenBucketPolicy {
  /** Tokens a full bucket holds: the burst an agent may send at once. */
  readonly capacity: number;
  /** Tokens added per second, continuously. */
  readonly refillPerSec: number;
}

/** 30 queries at once, then one every 2 s (30 a minute) per agent key. */
export const DEFAULT_AVAILABILITY_RATE: TokenBucketPolicy = { capacity: 30, refillPerSec: 0.5 };

interface Bucket {
  tokens: number;
  at: number;
}

/** The bucket state after refilling to `now` and trying to take one token. Shared with the Redis script's logic. */
export function takeToken(
  bucket: Bucket | undefined,
  policy: TokenBucketPolicy,
  now: number,
): { bucket: Bucket; ok: boolean; retryAfterMs: number } {
  const taken = takeTokens(bucket, policy, now, 1);
  return { bucket: taken.bucket, ok: taken.granted === 1, retryAfterMs: taken.retryAfterMs };
}

/**
 * takeToken for up to `want` whole tokens at once: as many as the bucket holds, at least one
 * or none (then how long until one is back). The Redis script follows the same rule.
 */
export function takeTokens(
  bucket: Bucket | undefined,
  policy: TokenBucketPolicy,
  now: number,
  want: number,
): { bucket: Bucket; granted: number; retryAfterMs: number } {
  const start = bucket ?? { tokens: policy.capacity, at: now };
  const elapsedSec = Math.max(0, now - start.at) / 1000;
  const tokens = Math.min(policy.capacity, start.tokens + elapsedSec * policy.refillPerSec);
  if (tokens >= 1) {
    const granted = Math.min(Math.max(1, Math.floor(want)), Math.floor(tokens));
    return { bucket: { tokens: tokens - granted, at: now }, granted, retryAfterMs: 0 };
  }
  const retryAfterMs = Math.ceil(((1 - tokens) / policy.refillPerSec) * 1000);
  return { bucket: { tokens, at: now }, granted: 0, retryAfterMs };
}

export class MemoryRateLimiter implements RateLimiter {
  private readonly buckets = new Map<string, Bucket>();
  private takesSinceSweep = 0;

  constructor(private readonly policy: TokenBucketPolicy = DEFAULT_AVAILABILITY_RATE) {
    if (!(policy.capacity >= 1) || !(policy.refillPerSec > 0)) {
      throw new RangeError("token bucket: capacity must be >= 1 and refillPerSec > 0");
    }
  }

  take(key: string, nowMs: number): Promise<Result<undefined, RateLimited>> {
    const result = takeToken(this.buckets.get(key), this.policy, nowMs);
    this.buckets.set(key, result.bucket);
    if (++this.takesSinceSweep >= 4096) this.sweep(nowMs);
    return Promise.resolve(result.ok ? ok(undefined) : err({ retryAfterMs: result.retryAfterMs }));
  }

  /** Full buckets carry no information: forget them, so memory stays bounded by active agents. */
  private sweep(now: number): void {
    this.takesSinceSweep = 0;
    const fullAfterMs = (this.policy.capacity / this.policy.refillPerSec) * 1000;
    for (const [key, bucket] of this.buckets) if (now - bucket.at >= fullAfterMs) this.buckets.delete(key);
  }
}
