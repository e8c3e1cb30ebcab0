/**
 * A shared token bucket (SchCP §7.2: one allowance per agent key, and per network origin,
 * across every gateway process) without a Redis call per request. Each process leases a few
 * tokens of a key at a time from the shared bucket and spends them locally; only when its
 * lease is spent (or lapsed) does it go back to the shared bucket. Concurrent requests of a key
 * wait for the one lease being taken rather than each asking the shared bucket.
 *
 * The limit still binds across processes: every token spent was first taken from the shared
 * bucket, so all processes together never exceed it. What the lease changes is who may spend
 * a token, within this tolerance: a process may hold up to `batch - 1` unspent tokens of a key
 * for at most `leaseMs`, which another process cannot use meanwhile (it may refuse a request
 * the shared bucket alone would have let through), and tokens left when a lease lapses are
 * not given back (the allowance is lower by at most that much per process and lease). The
 * batch is a tenth of the bucket's capacity (at most `maxBatch`), so a small bucket (an agent
 * key's 30) is leased a few tokens at a time and a large one (a network origin's 2,000) more.
 */
import type { TokenBucketPolicy } from "./rate-limit.js";
import { err, ok, type Result } from "../../protocol/result.js";
import type { RateLimited, RateLimiter } from "./types.js";

/** The shared bucket: takes up to `want` tokens of `key` (at least one, or none). */
export interface SharedTokenBucket {
  readonly policy: TokenBucketPolicy;
  takeUpTo(key: string, nowMs: number, want: number): Promise<{ granted: number; retryAfterMs: number }>;
}

export interface LeaseOptions {
  /** Most tokens one lease takes (default 32). */
  readonly maxBatch?: number;
  /** How long leased tokens may be spent (default 1,000 ms, on the caller's clock). */
  readonly leaseMs?: number;
}

interface Lease {
  tokens: number;
  until: number;
  /** The shared bucket is being asked for this key: later takes wait for its answer. */
  pending?: Promise<void>;
  /** Its answer when it refused: a take arriving meanwhile is refused with it. */
  refused?: { retryAfterMs: number; until: number };
}

export class LeasedRateLimiter implements RateLimiter {
  readonly batch: number;
  readonly leaseMs: number;
  private readonly leases = new Map<string, Lease>();
  private takesSinceSweep = 0;

  constructor(
    private readonly shared: SharedTokenBucket,
    options: LeaseOptions = {},
  ) {
    const maxBatch = Math.max(1, Math.floor(options.maxBatch ?? 32));
    this.batch = Math.max(1, Math.min(maxBatch, Math.floor(shared.policy.capacity / 10)));
    this.leaseMs = options.leaseMs ?? 1_000;
  }

  async take(key: string, nowMs: number): Promise<Result<undefined, RateLimited>> {
    if (++this.takesSinceSweep >= 4096) this.sweep(nowMs);
    for (;;) {
      let lease = this.leases.get(key);
      if (lease === undefined) this.leases.set(key, (lease = { tokens: 0, until: nowMs }));
      if (lease.pending !== undefined) {
        await lease.pending;
        continue;
      }
      if (lease.tokens >= 1 && nowMs < lease.until && nowMs >= lease.until - this.leaseMs) {
        lease.tokens--;
        return ok(undefined);
      }
      const { refused } = lease;
      if (refused !== undefined && nowMs < refused.until) return err({ retryAfterMs: refused.retryAfterMs });
      const current = lease;
      let answer: { granted: number; retryAfterMs: number } | undefined;
      let failure: { error: unknown } | undefined;
      current.pending = this.shared.takeUpTo(key, nowMs, this.batch).then(
        (a) => void (answer = a),
        (error: unknown) => void (failure = { error }),
      );
      await current.pending;
      delete current.pending;
      // The shared bucket did not answer: as before, the caller learns it (503 at the edge).
      if (failure !== undefined || answer === undefined) throw failure?.error;
      if (answer.granted >= 1) {
        current.tokens = answer.granted - 1;
        current.until = nowMs + this.leaseMs;
        delete current.refused;
        return ok(undefined);
      }
      current.tokens = 0;
      // Refusals of the same moment share the answer; the next moment asks again.
      current.refused = { retryAfterMs: answer.retryAfterMs, until: nowMs + 1 };
      return err({ retryAfterMs: answer.retryAfterMs });
    }
  }

  /** Keys whose lease lapsed carry nothing: memory stays bounded by active keys. */
  private sweep(now: number): void {
    this.takesSinceSweep = 0;
    for (const [key, lease] of this.leases)
      if (lease.pending === undefined && (now >= lease.until || lease.tokens < 1)) this.leases.delete(key);
  }

  /** Keys with a lease or a refusal remembered (tests). */
  get size(): number {
    return this.leases.size;
  }
}
