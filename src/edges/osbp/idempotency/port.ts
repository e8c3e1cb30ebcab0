/**
 * The OSBP booking.create idempotency cache (OSBP "booking.create": "A successful create is
 * cached: retrying with the same key and payload returns the same receipt without contacting
 * the platform again. The same key with a different payload fails with idempotency_conflict";
 * "Server Obligations": the last bullet).
 *
 * Keys are scoped by the caller (the adapter prefixes the organization id). The payload hash is
 * bookingPayloadHash(input): approval and verification_code are excluded, so the approved retry
 * and the retry with a code are the same logical attempt.
 *
 * An attempt is "started" (a lease, so two concurrent calls with one key never both reach the
 * platform), then either settled with its receipt (kept for retentionMs) or released (a
 * retryable failure such as requires_user_confirmation, requires_verification or slot_taken:
 * the agent retries under the same key). A lease left by a crashed process expires after
 * leaseMs; the retry then reaches the platform again under the same upstream idempotency key,
 * so the platform itself returns the booking already made instead of a second one.
 */
import type { Receipt } from "../../../protocol/osbp/index.js";

export type IdempotencyBegin =
  /** The caller owns the attempt and must settle or release it. */
  | { readonly kind: "started" }
  /** Settled earlier with the same payload: answer with this receipt, no platform call. */
  | { readonly kind: "replay"; readonly receipt: Receipt }
  /** Same key, different payload hash (settled or in progress). */
  | { readonly kind: "conflict" }
  /** Another call holds a live lease on this key with the same payload (retry shortly). */
  | { readonly kind: "in_progress" };

export interface OsbpIdempotencyStore {
  begin(key: string, payloadHash: string, now: number): Promise<IdempotencyBegin>;
  /** Records the receipt; only the lease holder (same key and hash) settles. */
  settle(key: string, payloadHash: string, receipt: Receipt, now: number): Promise<void>;
  /** Drops the lease so the same attempt can be retried; a settled entry is never released. */
  release(key: string, payloadHash: string): Promise<void>;
  close(): Promise<void>;
}

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
