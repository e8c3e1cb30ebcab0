/**
 * The idempotency store in process memory: the reference behaviour of entry.ts, which the
 * file and Redis stores match (OSBP's contract suite runs against all three). Nothing
 * survives the process.
 */
import { decideBegin, heldBy, type IdempotencyEntry } from "./entry.js";
import type {
  IdempotencyAttempt,
  IdempotencyBegin,
  IdempotencyKey,
  IdempotencyStore,
  IdempotencyTimes,
} from "./port.js";

const entryKey = (id: IdempotencyKey): string => JSON.stringify([id.scope, id.key]);

export class MemoryIdempotencyStore<A> implements IdempotencyStore<A> {
  readonly #entries = new Map<string, IdempotencyEntry<A>>();
  readonly #times: IdempotencyTimes;

  constructor(times: IdempotencyTimes) {
    this.#times = times;
  }

  begin(id: IdempotencyKey, fingerprint: string, now: number): Promise<IdempotencyBegin<A>> {
    const key = entryKey(id);
    const decision = decideBegin(this.#entries.get(key), fingerprint, now);
    if (decision.kind !== "free") return Promise.resolve(decision);
    this.#entries.set(key, { state: "started", fingerprint, until: now + this.#times.leaseMs });
    return Promise.resolve({ kind: "started", claim: fingerprint });
  }

  settle(attempt: IdempotencyAttempt, answer: A, now: number): Promise<void> {
    const key = entryKey(attempt.id);
    if (heldBy(this.#entries.get(key), attempt.claim)) {
      this.#entries.set(key, {
        state: "settled",
        fingerprint: attempt.claim,
        answer,
        until: now + this.#times.retentionMs,
      });
    }
    return Promise.resolve();
  }

  release(attempt: IdempotencyAttempt): Promise<void> {
    const key = entryKey(attempt.id);
    if (heldBy(this.#entries.get(key), attempt.claim)) this.#entries.delete(key);
    return Promise.resolve();
  }
}
