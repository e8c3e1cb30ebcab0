/**
 * A cache with a budget and an idle lifetime, for what is worked out per host and kept across
 * queries: entries are weighed (intervals, bytes, 1 each…), the least recently used go first
 * once the weights pass the budget, and an entry not used for `idleMs` is let go, whether or
 * not more queries come (a timer, unref'd, sweeps while anything is kept). So a host asked
 * about once costs its entries for `idleMs`, not for the life of the process.
 */
import { systemClock, type Clock } from "../protocol/clock.js";

export interface BudgetCacheOptions<V> {
  /** The most weight kept (the sum of weigh(value) over the entries). */
  readonly maxWeight: number;
  /** An entry not used for this long is dropped (ms). */
  readonly idleMs: number;
  readonly weigh: (value: V) => number;
  /** For idleness (default systemClock). */
  readonly clock?: Clock;
}

interface Entry<V> {
  readonly value: V;
  readonly weight: number;
  used: number;
}

export class BudgetCache<K, V> {
  // A Map keeps insertion order: re-inserting on use makes the first entry the least recent.
  private readonly entries = new Map<K, Entry<V>>();
  private total = 0;
  private timer: NodeJS.Timeout | undefined;
  private readonly clock: Clock;

  constructor(private readonly options: BudgetCacheOptions<V>) {
    this.clock = options.clock ?? systemClock;
  }

  get(key: K): V | undefined {
    const e = this.entries.get(key);
    if (e === undefined) return undefined;
    const now = this.clock.now();
    if (now - e.used >= this.options.idleMs) {
      this.drop(key, e);
      return undefined;
    }
    e.used = now;
    this.entries.delete(key);
    this.entries.set(key, e);
    return e.value;
  }

  set(key: K, value: V): void {
    const old = this.entries.get(key);
    if (old !== undefined) this.drop(key, old);
    const weight = this.options.weigh(value);
    if (weight > this.options.maxWeight) return; // never kept: it alone is over the budget
    this.entries.set(key, { value, weight, used: this.clock.now() });
    this.total += weight;
    this.sweep();
    this.timer ??= this.startTimer();
  }

  /** Drops idle entries, then the least recently used while over the budget. */
  sweep(): void {
    const now = this.clock.now();
    for (const [key, e] of this.entries) {
      if (this.total <= this.options.maxWeight && now - e.used < this.options.idleMs) break;
      this.drop(key, e);
    }
    // Entries are in order of use, so the first one still kept is the least idle of the rest;
    // a later one may have lapsed only if the clock went back, which the next get sees.
    if (this.entries.size === 0 && this.timer !== undefined) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }

  clear(): void {
    this.entries.clear();
    this.total = 0;
  }

  /** How many entries and how much weight are kept (tests, operators). */
  get size(): { readonly entries: number; readonly weight: number } {
    return { entries: this.entries.size, weight: this.total };
  }

  private drop(key: K, e: Entry<V>): void {
    this.entries.delete(key);
    this.total -= e.weight;
  }

  private startTimer(): NodeJS.Timeout {
    const t = setInterval(() => this.sweep(), Math.max(1_000, this.options.idleMs / 2));
    t.unref();
    return t;
  }
}
