/**
 * The decision of `IdempotencyStore.begin` over one stored entry, for stores that keep
 * entries themselves (memory here, OSBP's file and Redis stores). Shared so those stores
 * cannot drift; each makes it atomic its own way. The hold store's SchCP §9.1 records make the
 * same decision in their own code (`src/holds`, below the core), except that its lock does not
 * record the running request's fingerprint (port.ts, `begin`).
 *
 * These stores claim an attempt by its fingerprint: after a lease lapsed, a slow first attempt
 * and the retry that took the key over both hold it. Both asked the same thing; whichever
 * settles first is the answer, and the other's settle is ignored.
 */
import type { IdempotencyBegin } from "./port.js";

export type IdempotencyEntry<A> =
  | { readonly state: "started"; readonly fingerprint: string; readonly until: number }
  | {
      readonly state: "settled";
      readonly fingerprint: string;
      readonly answer: A;
      readonly until: number;
    };

export type IdempotencyDecision<A> =
  | Exclude<IdempotencyBegin<A>, { readonly kind: "started" }>
  /** No live entry: the caller takes the lease. */
  | { readonly kind: "free" };

/** `entry`: what is stored under the key (undefined: nothing). An entry whose `until` is past counts as absent. */
export function decideBegin<A>(
  entry: IdempotencyEntry<A> | undefined,
  fingerprint: string,
  now: number,
): IdempotencyDecision<A> {
  if (entry === undefined || entry.until <= now) return { kind: "free" };
  if (entry.fingerprint !== fingerprint) return { kind: "conflict" };
  return entry.state === "settled" ? { kind: "replay", answer: entry.answer } : { kind: "in_progress" };
}

/** Whether `entry` is the lease `claim` holds (settle and release act only then). */
export function heldBy<A>(entry: IdempotencyEntry<A> | undefined, claim: string): boolean {
  return entry?.state === "started" && entry.fingerprint === claim;
}
