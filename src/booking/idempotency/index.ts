/**
 * The one idempotency mechanism of every edge (docs/ARCHITECTURE.md, Idempotency): `runOnce`
 * over the `IdempotencyStore` port, its memory store, the entry decision the stores share,
 * and the hold store's SchCP §9.1 records as a store. Each edge keeps its own fingerprint, what
 * it keeps and its wire refusals (SchCP: `src/edges/schcp/idempotency.ts`; OSBP:
 * `src/edges/osbp/adapter/create-booking.ts`).
 */
export type { IdempotencyAttempt, IdempotencyBegin, IdempotencyKey, IdempotencyStore } from "./port.js";
export { decideBegin, heldBy, type IdempotencyEntry } from "./entry.js";
export { MemoryIdempotencyStore } from "./memory.js";
export { holdStoreIdempotency, type KeptResponse } from "./hold-store.js";
export { runOnce } from "./run-once.js";
