/**
 * The idempotency store port: what every edge's idempotency runs on (docs/ARCHITECTURE.md,
 * Idempotency). A request names its operation by a key within a scope and carries a
 * fingerprint of what it asks; the store keeps, per scope and key, either a lease (the first
 * attempt is running) or the settled answer, and makes the one decision that must be atomic
 * across processes in `begin`.
 *
 * Implementations: the hold store's §9.1 records for SchCP (`hold-store.ts`, over
 * `src/holds/port.ts`), memory (`memory.ts`), and OSBP's file and Redis stores
 * (`src/edges/osbp/idempotency/`). Each is configured with its own lease and retention
 * times; the port passes only the caller's `now`.
 */

/** One idempotent operation: a key within its scope. */
export interface IdempotencyKey {
  /** Whose keys these are: SchCP the agent keyid (SchCP §9.1), OSBP the mandate's organization. */
  readonly scope: string;
  readonly key: string;
}

export type IdempotencyBegin<A> =
  /** The caller owns the attempt and must settle or release it with `claim`. */
  | { readonly kind: "started"; readonly claim: string }
  /** Settled earlier with the same fingerprint: answer with this, acting again never. */
  | { readonly kind: "replay"; readonly answer: A }
  /**
   * Another fingerprint under the same key: always against a settled answer; against a running
   * attempt when the store records that attempt's fingerprint (see `begin`).
   */
  | { readonly kind: "conflict" }
  /** Another attempt holds a live lease on this key (retry shortly). */
  | { readonly kind: "in_progress" };

/** A started attempt, as settle and release name it. */
export interface IdempotencyAttempt {
  readonly id: IdempotencyKey;
  readonly fingerprint: string;
  /** begin's claim: a store settles or releases only for the lease holder. */
  readonly claim: string;
}

export interface IdempotencyStore<A> {
  /**
   * Atomically, judged at `now`: a live settled answer is a replay (same fingerprint) or a
   * conflict; a live lease is in_progress, or a conflict when the store records the lease's
   * fingerprint and it differs (OSBP's stores do; the hold store's SchCP §9.1 lock does not);
   * anything else (nothing, or a lapsed lease or answer) starts a new lease. A lease lapses
   * after the store's lease time, so the retry of a crashed first attempt starts again.
   */
  begin(id: IdempotencyKey, fingerprint: string, now: number): Promise<IdempotencyBegin<A>>;
  /** Keeps `answer` for the store's retention time from `now`; ignored unless `attempt` holds the lease. */
  settle(attempt: IdempotencyAttempt, answer: A, now: number): Promise<void>;
  /** Drops the lease so the same key can run again; never drops a settled answer. */
  release(attempt: IdempotencyAttempt): Promise<void>;
}

export interface IdempotencyTimes {
  /** How long a started attempt blocks others before it counts as crashed. */
  readonly leaseMs: number;
  /** How long a settled answer is replayed. */
  readonly retentionMs: number;
}
