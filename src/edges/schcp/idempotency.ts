/**
 * SchCP §9.1 idempotency on the core's one mechanism (`runOnce`, src/booking/idempotency).
 * The store keeps (agent keyid, idempotency_key) -> (request hash, principal, response) for
 * at least 24 h (the hold store's records, `holdStoreIdempotency`):
 *
 * - same body: the stored response is replayed, after `authorizeReplay` has checked that the
 *   CURRENT mandate covers the stored result as a fresh request's would (same principal,
 *   scope, bookings, service, time, total, offer): holding the key is not enough;
 * - different body: 409 IDEMPOTENCY_CONFLICT;
 * - the first request still running: 409 INVALID_STATE, retry shortly (whatever its body: the
 *   lock does not record it); a first request that crashed holds the key for the lock time;
 * - refusals of the credential (401, 403) and transient failures (429, 5xx) are not stored,
 *   so the same key can be retried with a corrected mandate.
 * An exception from `run` (a store outage) stores nothing and propagates.
 */
import { createHash } from "node:crypto";
import type { BookingRefusal } from "../../booking/api.js";
import { refuse } from "../../booking/bookings/refuse.js";
import {
  holdStoreIdempotency,
  runOnce,
  type IdempotencyStore,
  type KeptResponse,
} from "../../booking/idempotency/index.js";
import type { IdempotencyStore as RecordStore, StoredResponse } from "../../holds/port.js";
import type { Clock } from "../../protocol/clock.js";
import { err, ok } from "../../protocol/result.js";
import type { Result } from "../../protocol/result.js";

/**
 * The request hash a record is keyed against (SchCP §9.1 "A retry with the same body returns
 * the stored response. A retry with a different body returns IDEMPOTENCY_CONFLICT"). Method
 * and path are included, so one key reused on another route or host is a conflict too; the
 * body is hashed as the exact bytes received, no canonicalisation.
 */
export function requestHash(method: string, path: string, body: Uint8Array | string): string {
  const h = createHash("sha256");
  // Length-prefixed parts: ("POST", "/a\nb") and ("POST\n/a", "b") can never collide.
  const head = `${method.toUpperCase()}`;
  h.update(`${head.length}:${head}${path.length}:${path}`);
  h.update(typeof body === "string" ? Buffer.from(body, "utf8") : body);
  return h.digest("base64url");
}

/** The first request may run 60 s before a retry takes the key over; a response is kept 25 h ("at least 24 h"). */
const SCHCP_IDEMPOTENCY_TIMES = { leaseMs: 60_000, retentionMs: 25 * 3_600_000 } as const;

/** The hold store's §9.1 records with SchCP's times. */
export function schcpIdempotencyStore(store: RecordStore): IdempotencyStore<KeptResponse> {
  return holdStoreIdempotency(store, SCHCP_IDEMPOTENCY_TIMES);
}

export interface IdempotencyContext {
  /** RFC 7638 thumbprint of the agent key that signed the request (§9.1 "agent keyid"). */
  readonly agentKey: string;
  readonly idempotencyKey: string;
  /** requestHash(method, path, body bytes). */
  readonly requestHash: string;
  /** Root principal of the request's mandate, or null without one. */
  readonly principal: string | null;
  readonly clock: Clock;
}

export type ReplayAuthorizer = (
  stored: KeptResponse,
) => Promise<Result<void, BookingRefusal>> | Result<void, BookingRefusal>;

export interface IdempotentOutcome {
  readonly response: StoredResponse;
  /** True when this is the stored response of an earlier request. */
  readonly replayed: boolean;
}

/** §9.1: 401 and 403 (the credential) and 429 and 5xx (transient) are not stored. */
function isStorable(status: number): boolean {
  return !(status === 401 || status === 403 || status === 429 || status >= 500);
}

export async function withIdempotency(
  store: IdempotencyStore<KeptResponse>,
  ctx: IdempotencyContext,
  run: () => Promise<StoredResponse>,
  authorizeReplay: ReplayAuthorizer,
): Promise<Result<IdempotentOutcome, BookingRefusal>> {
  const once = await runOnce(
    store,
    { id: { scope: ctx.agentKey, key: ctx.idempotencyKey }, fingerprint: ctx.requestHash },
    run,
    {
      clock: ctx.clock,
      keep: (response) => (isStorable(response.status) ? { principal: ctx.principal, response } : undefined),
    },
  );
  switch (once.kind) {
    case "conflict":
      return err(conflict("this idempotency_key was used with a different request"));
    case "in_progress":
      return err(
        refuse("invalid_state", "invalid_state", "a request with this idempotency_key is still in progress", {
          retryAfterMs: 1_000,
          remedies: [{ type: "retry", afterMs: 1_000 }],
        }),
      );
    case "replayed": {
      // A stored result is the result of acting for one principal (§9.1).
      if (once.answer.principal !== ctx.principal) {
        return err(conflict("this idempotency_key was used for another principal"));
      }
      const allowed = await authorizeReplay(once.answer);
      if (!allowed.ok) return allowed;
      return ok({ response: once.answer.response, replayed: true });
    }
    case "ran":
      return ok({ response: once.result, replayed: false });
  }
}

const conflict = (message: string): BookingRefusal =>
  refuse("idempotency_conflict", "idempotency_conflict", message);
