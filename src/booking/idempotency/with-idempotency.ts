/**
 * SchCP §9.1 idempotency around one mutating request. The store keeps (agent keyid,
 * idempotency_key) -> (request hash, principal, response) for at least 24 h:
 *
 * - same body: the stored response is replayed, after `authorizeReplay` has checked that the
 *   CURRENT mandate covers the stored result as a fresh request's would (same principal,
 *   scope, bookings, service, time, total, offer): holding the key is not enough;
 * - different body: 409 IDEMPOTENCY_CONFLICT;
 * - the first request still running: 409 INVALID_STATE, retry shortly;
 * - refusals of the credential (401, 403) and transient failures (429, 5xx) are not stored,
 *   so the same key can be retried with a corrected mandate.
 * An exception from `run` (a store outage) stores nothing and propagates.
 */
import type { BookingRefusal } from "../api.js";
import type { IdempotencyRecord, IdempotencyStore, StoredResponse } from "../../holds/port.js";
import { err, ok } from "../../protocol/result.js";
import type { Result } from "../../protocol/result.js";
import { refuse } from "../bookings/refuse.js";

export interface IdempotencyContext {
  /** RFC 7638 thumbprint of the agent key that signed the request (§9.1 "agent keyid"). */
  readonly agentKey: string;
  readonly idempotencyKey: string;
  /** requestHash(method, path, body bytes). */
  readonly requestHash: string;
  /** Root principal of the request's mandate, or null without one. */
  readonly principal: string | null;
  readonly now: number;
  /** How long the first request may run before a retry may take the key over (default 60 s). */
  readonly lockMs?: number;
  /** How long a response is kept (default 25 h: "at least 24 h"). */
  readonly retainMs?: number;
}

export type ReplayAuthorizer = (
  stored: IdempotencyRecord,
) => Promise<Result<void, BookingRefusal>> | Result<void, BookingRefusal>;

export interface IdempotentOutcome {
  readonly response: StoredResponse;
  /** True when this is the stored response of an earlier request. */
  readonly replayed: boolean;
}

const DEFAULT_LOCK_MS = 60_000;
const DEFAULT_RETAIN_MS = 25 * 3_600_000;

/** §9.1: 401 and 403 (the credential) and 429 and 5xx (transient) are not stored. */
export function isStorable(status: number): boolean {
  return !(status === 401 || status === 403 || status === 429 || status >= 500);
}

export async function withIdempotency(
  store: IdempotencyStore,
  ctx: IdempotencyContext,
  run: () => Promise<StoredResponse>,
  authorizeReplay: ReplayAuthorizer,
): Promise<Result<IdempotentOutcome, BookingRefusal>> {
  const scope = { agentKey: ctx.agentKey, idempotencyKey: ctx.idempotencyKey };
  const begun = await store.beginIdempotent(scope, ctx.requestHash, ctx.now, ctx.lockMs ?? DEFAULT_LOCK_MS);
  switch (begun.state) {
    case "conflict":
      return err(conflict("this idempotency_key was used with a different request"));
    case "in_progress":
      return err(
        refuse("invalid_state", "invalid_state", "a request with this idempotency_key is still in progress", {
          retryAfterMs: 1_000,
          remedies: [{ type: "retry", afterMs: 1_000 }],
        }),
      );
    case "replay": {
      // A stored result is the result of acting for one principal (§9.1).
      if (begun.record.principal !== ctx.principal) {
        return err(conflict("this idempotency_key was used for another principal"));
      }
      const allowed = await authorizeReplay(begun.record);
      if (!allowed.ok) return allowed;
      return ok({ response: begun.record.response, replayed: true });
    }
    case "new":
      break;
  }

  let response: StoredResponse;
  try {
    response = await run();
  } catch (e) {
    await store.abandonIdempotent(scope, begun.fence);
    throw e;
  }
  if (!isStorable(response.status)) {
    await store.abandonIdempotent(scope, begun.fence);
  } else {
    await store.completeIdempotent(
      scope,
      begun.fence,
      { requestHash: ctx.requestHash, principal: ctx.principal, response },
      ctx.now,
      ctx.retainMs ?? DEFAULT_RETAIN_MS,
    );
  }
  return ok({ response, replayed: false });
}

const conflict = (message: string): BookingRefusal =>
  refuse("idempotency_conflict", "idempotency_conflict", message);
