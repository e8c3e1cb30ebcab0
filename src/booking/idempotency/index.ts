/**
 * SchCP §9.1 idempotency for the edge: wrap each mutating request. The replay check under the
 * current mandate is the SchCP edge's (schcp/replay.ts).
 */
export { requestHash } from "./request-hash.js";
export { isStorable, withIdempotency } from "./with-idempotency.js";
export type { IdempotencyContext, IdempotentOutcome, ReplayAuthorizer } from "./with-idempotency.js";
