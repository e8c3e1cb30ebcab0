/**
 * The small stores beside the holds, in memory: RFC 9421 replay memory (SchCP §3.2),
 * idempotency records (§9.1) and reputation counts (§7.3).
 */
import { randomUUID } from "node:crypto";
import { decay, emptyCounts, record } from "../reputation.js";
import type {
  IdempotencyBegin,
  IdempotencyRecord,
  IdempotencyScope,
  ReputationCounts,
  ReputationOutcome,
  ReputationSubject,
  StoredResponse,
} from "../port.js";
import type { Clock } from "../../protocol/clock.js";

/** Entries past their expiry are dropped in one pass every this many writes. */
const PRUNE_EVERY = 1024;

/** (keyid, nonce) seen, remembered until its expiry (created + 301 s, the caller's choice). */
export class SeenNonces {
  /** Exported and restored whole by MemoryHoldStore's snapshot. */
  readonly seen = new Map<string, number>();
  private writes = 0;

  /** `clock` is only read here: the NonceMemory port passes no `now`. */
  constructor(private readonly clock: Clock) {}

  rememberIfNew(keyid: string, nonce: string, expiresAtSec: number): boolean {
    const now = this.clock.now();
    const key = JSON.stringify([keyid, nonce]);
    const until = this.seen.get(key);
    if (until !== undefined && now < until) return false;
    this.seen.set(key, expiresAtSec * 1000);
    if (++this.writes % PRUNE_EVERY === 0) {
      for (const [k, t] of this.seen) if (t <= now) this.seen.delete(k);
    }
    return true;
  }
}

interface IdempotencyEntry {
  lock?: { readonly fence: string; readonly until: number };
  done?: { readonly record: IdempotencyRecord; readonly keepUntil: number };
}

/** §9.1: (agent keyid, idempotency_key) → (request hash, principal, response). */
export class IdempotencyMemory {
  /** Exported and restored whole by MemoryHoldStore's snapshot. */
  readonly entries = new Map<string, IdempotencyEntry>();
  private writes = 0;

  private key(scope: IdempotencyScope): string {
    return JSON.stringify([scope.agentKey, scope.idempotencyKey]);
  }

  begin(scope: IdempotencyScope, requestHash: string, now: number, lockMs: number): IdempotencyBegin {
    const key = this.key(scope);
    const entry = this.entries.get(key);
    if (entry?.done !== undefined && now < entry.done.keepUntil) {
      const stored = entry.done.record;
      return stored.requestHash === requestHash
        ? { state: "replay", record: stored }
        : { state: "conflict", record: stored };
    }
    if (entry?.lock !== undefined && entry.done === undefined && now < entry.lock.until)
      return { state: "in_progress" };
    const fence = randomUUID();
    this.entries.set(key, { lock: { fence, until: now + lockMs } });
    this.prune(now);
    return { state: "new", fence };
  }

  complete(
    scope: IdempotencyScope,
    fence: string,
    value: { requestHash: string; principal: string | null; response: StoredResponse },
    now: number,
    retainMs: number,
  ): boolean {
    const key = this.key(scope);
    const entry = this.entries.get(key);
    if (entry?.lock?.fence !== fence || entry.done !== undefined) return false;
    const stored: IdempotencyRecord = {
      requestHash: value.requestHash,
      principal: value.principal,
      response: { status: value.response.status, body: value.response.body },
      createdAt: now,
    };
    this.entries.set(key, { done: { record: stored, keepUntil: now + retainMs } });
    return true;
  }

  abandon(scope: IdempotencyScope, fence: string): void {
    const key = this.key(scope);
    const entry = this.entries.get(key);
    if (entry?.lock?.fence === fence && entry.done === undefined) this.entries.delete(key);
  }

  private prune(now: number): void {
    if (++this.writes % PRUNE_EVERY !== 0) return;
    for (const [k, e] of this.entries) {
      const until = e.done?.keepUntil ?? e.lock?.until ?? 0;
      if (until <= now) this.entries.delete(k);
    }
  }
}

/** §7.3 decayed counts per subject; decayed on every write and read to the caller's `now`. */
export class ReputationMemory {
  /** Exported and restored whole by MemoryHoldStore's snapshot. */
  readonly counts = new Map<string, ReputationCounts>();

  private key(subject: ReputationSubject): string {
    return JSON.stringify([subject.kind, subject.id]);
  }

  record(subject: ReputationSubject, outcome: ReputationOutcome, now: number): void {
    const key = this.key(subject);
    this.counts.set(key, record(this.counts.get(key) ?? emptyCounts(now), outcome, now));
  }

  read(subject: ReputationSubject, now: number): ReputationCounts {
    const c = this.counts.get(this.key(subject));
    return c === undefined ? emptyCounts(now) : decay(c, now);
  }
}
