/**
 * Replay protection for request signatures (SchCP §3.2): each (keyid, nonce) is remembered
 * until created + 301 s, the last moment its signature could still verify. The Redis
 * implementation lives in src/holds; this is the in-memory twin for the embedded default
 * and tests, with an injected clock so expiry is testable without waiting.
 */
export interface NonceMemory {
  /** Records the pair; true the first time, false while an unexpired record exists. */
  rememberIfNew(keyid: string, nonce: string, expiresAtSec: number): Promise<boolean>;
}

/** Seconds since the epoch. */
export type SecondsClock = () => number;

export class MemoryNonceMemory implements NonceMemory {
  private readonly entries = new Map<string, number>();
  private insertsSinceSweep = 0;

  constructor(
    private readonly nowSec: SecondsClock = () => Date.now() / 1000,
    private readonly sweepEvery = 1024,
  ) {}

  rememberIfNew(keyid: string, nonce: string, expiresAtSec: number): Promise<boolean> {
    const now = this.nowSec();
    // JSON of the pair: no separator character can make two pairs collide.
    const key = JSON.stringify([keyid, nonce]);
    const existing = this.entries.get(key);
    if (existing !== undefined && existing > now) return Promise.resolve(false);
    this.entries.set(key, expiresAtSec);
    if (++this.insertsSinceSweep >= this.sweepEvery) this.sweep(now);
    return Promise.resolve(true);
  }

  /** Entries still remembered (for tests and metrics). */
  get size(): number {
    return this.entries.size;
  }

  private sweep(now: number): void {
    this.insertsSinceSweep = 0;
    for (const [key, expiresAt] of this.entries) if (expiresAt <= now) this.entries.delete(key);
  }
}
