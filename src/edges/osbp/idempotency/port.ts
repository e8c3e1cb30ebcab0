/**
 * The OSBP booking.create idempotency cache (OSBP "booking.create": "A successful create is
 * cached: retrying with the same key and payload returns the same receipt without contacting
 * the platform again. The same key with a different payload fails with idempotency_conflict";
 * "Server Obligations": the last bullet): the core's idempotency store port
 * (src/booking/idempotency/port.ts) with the receipt as the kept answer.
 *
 * Keys are scoped by the caller's organization (the mandate's organization_id) and stored as
 * `<organization>:<idempotency_key>` (`storedKey`). The fingerprint is bookingPayloadHash(input):
 * approval and verification_code are excluded, so the approved retry and the retry with a code
 * are the same logical attempt. These stores record the running attempt's payload hash, so
 * another payload is a conflict even while the first attempt runs, and claim an attempt by
 * that hash (src/booking/idempotency/entry.ts).
 *
 * An attempt is "started" (a lease, so two concurrent calls with one key never both reach the
 * platform), then either settled with its receipt (kept for retentionMs) or released (a
 * retryable failure such as requires_user_confirmation, requires_verification or slot_taken:
 * the agent retries under the same key). A lease left by a crashed process expires after
 * leaseMs; the retry then reaches the platform again under the same upstream idempotency key,
 * so the platform itself returns the booking already made instead of a second one.
 */
import type { IdempotencyKey, IdempotencyStore } from "../../../booking/idempotency/index.js";
import type { Receipt } from "../../../protocol/osbp/index.js";

export interface OsbpIdempotencyStore extends IdempotencyStore<Receipt> {
  close(): Promise<void>;
}

/** The key an entry is stored under: the file's `key`, and inside the Redis key's braces. */
export const storedKey = (id: IdempotencyKey): string => `${id.scope}:${id.key}`;

export interface IdempotencyTimings {
  /** How long a started attempt blocks others before it counts as abandoned (default 120 s). */
  readonly leaseMs?: number;
  /** How long a settled receipt is replayed (default 30 days). */
  readonly retentionMs?: number;
}

export const DEFAULT_LEASE_MS = 120_000;
export const DEFAULT_RETENTION_MS = 30 * 86_400_000;

/** Thrown (as an Error subclass) when the backing file or server cannot be used. */
export class IdempotencyStoreError extends Error {
  override readonly name = "IdempotencyStoreError";
}
