/** SchCP §9.1 idempotency for the edge: wrap each mutating request, replay under the current mandate. */
export { requestHash } from "./request-hash.js";
export { isStorable, withIdempotency } from "./with-idempotency.js";
export type { IdempotencyContext, IdempotentOutcome, ReplayAuthorizer } from "./with-idempotency.js";
export { actionOf, mandateReplayAuthorizer } from "./replay.js";
