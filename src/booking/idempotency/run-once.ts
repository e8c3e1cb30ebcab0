/**
 * Run an operation once per scope and key (docs/ARCHITECTURE.md, Idempotency): the first
 * request runs under a lease and its answer is kept; the same request again gets the kept
 * answer without running; another request under the same key is a conflict; a request
 * arriving while the first still runs is told so; the retry of a first attempt that crashed
 * runs again once its lease lapsed (port.ts). Each edge says what it keeps (SchCP §9.1 keeps
 * every response but refusals of the credential and transient failures; OSBP "booking.create"
 * keeps a successful create's receipt) and maps the outcome to its own wire.
 */
import type { Clock } from "../../protocol/clock.js";
import type { IdempotencyKey, IdempotencyStore } from "./port.js";

export interface IdempotentRequest {
  readonly id: IdempotencyKey;
  /** What the request asks, hashed by the edge (SchCP: method, path and body; OSBP: the payload). */
  readonly fingerprint: string;
}

export type RunOnceOutcome<T, A> =
  /** This request ran (its answer is kept when `keep` gave one). */
  | { readonly kind: "ran"; readonly result: T }
  /** An earlier request's kept answer; nothing ran. */
  | { readonly kind: "replayed"; readonly answer: A }
  | { readonly kind: "conflict" }
  | { readonly kind: "in_progress" };

export interface RunOnceOptions<T, A> {
  /** Read at begin, and again when the answer is kept (it is kept from then). */
  readonly clock: Clock;
  /** The answer to keep for this result, or undefined to keep nothing: the same key may run again. */
  keep(result: T): A | undefined;
  /**
   * A store failure after the run (keeping the answer, or releasing the lease): given, it is
   * reported here and the run's result stands; absent, it propagates.
   */
  onStoreError?(operation: "settle" | "release", error: unknown): void;
}

/** A failure of `run` releases the lease and propagates; a store failure at begin propagates. */
export async function runOnce<T, A>(
  store: IdempotencyStore<A>,
  request: IdempotentRequest,
  run: () => Promise<T>,
  options: RunOnceOptions<T, A>,
): Promise<RunOnceOutcome<T, A>> {
  const begun = await store.begin(request.id, request.fingerprint, options.clock.now());
  switch (begun.kind) {
    case "replay":
      return { kind: "replayed", answer: begun.answer };
    case "conflict":
    case "in_progress":
      return begun;
    case "started":
      break;
  }
  const attempt = { id: request.id, fingerprint: request.fingerprint, claim: begun.claim };
  const guarded = async (operation: "settle" | "release", act: () => Promise<void>): Promise<void> => {
    if (options.onStoreError === undefined) return act();
    try {
      await act();
    } catch (error) {
      options.onStoreError(operation, error);
    }
  };

  let result: T;
  try {
    result = await run();
  } catch (error) {
    await guarded("release", () => store.release(attempt));
    throw error;
  }
  const answer = options.keep(result);
  if (answer === undefined) await guarded("release", () => store.release(attempt));
  else await guarded("settle", () => store.settle(attempt, answer, options.clock.now()));
  return { kind: "ran", result };
}
