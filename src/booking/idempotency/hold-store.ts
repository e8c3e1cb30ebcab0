/**
 * The hold store's SchCP §9.1 records as an idempotency store: (agent keyid,
 * idempotency_key) -> (request hash, principal, response), in memory and Redis alike
 * (`src/holds`: `<p>idem:<n>:<agent><key>` in Redis). The records and their key names are the
 * hold store's; this only names them in the port's terms: the scope is the agent keyid, the
 * fingerprint the request hash, the claim the lock's fence.
 *
 * Its lock does not record the running request's hash, so a different request while the
 * first runs is in_progress, not a conflict (port.ts).
 */
import type { IdempotencyScope, IdempotencyStore as RecordStore, StoredResponse } from "../../holds/port.js";
import type {
  IdempotencyAttempt,
  IdempotencyBegin,
  IdempotencyKey,
  IdempotencyStore,
  IdempotencyTimes,
} from "./port.js";

/** What a §9.1 record keeps beside the request hash: whom it acted for, and what it answered. */
export interface KeptResponse {
  /** Root principal of the request's mandate, or null without one. */
  readonly principal: string | null;
  readonly response: StoredResponse;
}

const scopeOf = (id: IdempotencyKey): IdempotencyScope => ({ agentKey: id.scope, idempotencyKey: id.key });

export function holdStoreIdempotency(
  store: RecordStore,
  times: IdempotencyTimes,
): IdempotencyStore<KeptResponse> {
  return {
    async begin(id, fingerprint, now): Promise<IdempotencyBegin<KeptResponse>> {
      const begun = await store.beginIdempotent(scopeOf(id), fingerprint, now, times.leaseMs);
      switch (begun.state) {
        case "new":
          return { kind: "started", claim: begun.fence };
        case "replay":
          return {
            kind: "replay",
            answer: { principal: begun.record.principal, response: begun.record.response },
          };
        case "conflict":
          return { kind: "conflict" };
        case "in_progress":
          return { kind: "in_progress" };
      }
    },
    async settle(attempt: IdempotencyAttempt, answer: KeptResponse, now: number): Promise<void> {
      await store.completeIdempotent(
        scopeOf(attempt.id),
        attempt.claim,
        { requestHash: attempt.fingerprint, principal: answer.principal, response: answer.response },
        now,
        times.retentionMs,
      );
    },
    release(attempt: IdempotencyAttempt): Promise<void> {
      return store.abandonIdempotent(scopeOf(attempt.id), attempt.claim);
    },
  };
}
