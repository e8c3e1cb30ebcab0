/**
 * In-process idempotency cache: the reference behaviour the file and Redis stores match
 * (one contract suite runs against all three), and the store unit tests of adapters use.
 */
import type { Receipt } from "../../../protocol/osbp/index.js";
import {
  DEFAULT_LEASE_MS,
  DEFAULT_RETENTION_MS,
  type IdempotencyBegin,
  type IdempotencyTimings,
  type OsbpIdempotencyStore,
} from "./port.js";

export type IdempotencyEntry =
  | { readonly state: "started"; readonly payloadHash: string; readonly until: number }
  | {
      readonly state: "settled";
      readonly payloadHash: string;
      readonly receipt: Receipt;
      readonly until: number;
    };

/**
 * The decision every store makes, on the entry it read (undefined: none). Shared so the
 * stores cannot drift; each store makes it atomic its own way.
 */
export function decideBegin(
  entry: IdempotencyEntry | undefined,
  payloadHash: string,
  now: number,
): IdempotencyBegin {
  if (entry === undefined || entry.until <= now) return { kind: "started" };
  if (entry.payloadHash !== payloadHash) return { kind: "conflict" };
  return entry.state === "settled" ? { kind: "replay", receipt: entry.receipt } : { kind: "in_progress" };
}

export class MemoryIdempotencyStore implements OsbpIdempotencyStore {
  readonly #entries = new Map<string, IdempotencyEntry>();
  readonly #leaseMs: number;
  readonly #retentionMs: number;

  constructor(timings: IdempotencyTimings = {}) {
    this.#leaseMs = timings.leaseMs ?? DEFAULT_LEASE_MS;
    this.#retentionMs = timings.retentionMs ?? DEFAULT_RETENTION_MS;
  }

  begin(key: string, payloadHash: string, now: number): Promise<IdempotencyBegin> {
    const decision = decideBegin(this.#entries.get(key), payloadHash, now);
    if (decision.kind === "started")
      this.#entries.set(key, { state: "started", payloadHash, until: now + this.#leaseMs });
    return Promise.resolve(decision);
  }

  settle(key: string, payloadHash: string, receipt: Receipt, now: number): Promise<void> {
    const entry = this.#entries.get(key);
    if (entry?.state === "started" && entry.payloadHash === payloadHash)
      this.#entries.set(key, { state: "settled", payloadHash, receipt, until: now + this.#retentionMs });
    return Promise.resolve();
  }

  release(key: string, payloadHash: string): Promise<void> {
    const entry = this.#entries.get(key);
    if (entry?.state === "started" && entry.payloadHash === payloadHash) this.#entries.delete(key);
    return Promise.resolve();
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
