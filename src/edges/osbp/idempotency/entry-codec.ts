/**
 * The stored form of an entry, and checks for what a store reads back from disk or Redis. A
 * store that cannot trust what it read must refuse rather than forget: an entry silently
 * dropped is a booking.create that reaches the platform twice (OSBP "Server Obligations": the
 * same idempotency_key returns the same result).
 *
 * Stored, an entry is {state, payloadHash, until, receipt?} (the file's entries, and the Redis
 * hash's st, ph, un and rc); in memory it is the core's IdempotencyEntry, whose fingerprint is
 * the payload hash and whose answer is the receipt.
 */
import type { IdempotencyEntry } from "../../../booking/idempotency/index.js";
import type { Receipt } from "../../../protocol/osbp/index.js";
import { DEFAULT_LEASE_MS, DEFAULT_RETENTION_MS, type IdempotencyTimings } from "./port.js";

export interface ResolvedTimings {
  readonly leaseMs: number;
  readonly retentionMs: number;
}

/** The port's defaults applied; a zero, negative or fractional duration is a configuration bug. */
export function resolveTimings(timings: IdempotencyTimings = {}): ResolvedTimings {
  const leaseMs = timings.leaseMs ?? DEFAULT_LEASE_MS;
  const retentionMs = timings.retentionMs ?? DEFAULT_RETENTION_MS;
  for (const [name, value] of [
    ["leaseMs", leaseMs],
    ["retentionMs", retentionMs],
  ] as const) {
    if (!Number.isSafeInteger(value) || value <= 0) {
      throw new RangeError(`idempotency ${name} must be a positive integer of milliseconds, got ${value}`);
    }
  }
  return { leaseMs, retentionMs };
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * A Receipt (OSBP "Core Objects"), or a reason it is not one. Members beyond the required
 * three are kept, so a replay is the receipt that was settled, whatever it carried.
 */
function parseReceipt(value: unknown): Receipt | string {
  if (!isRecord(value)) return "receipt is not an object";
  const { id, booking_id, text } = value;
  if (typeof id !== "string" || typeof booking_id !== "string" || typeof text !== "string") {
    return "receipt needs string id, booking_id and text";
  }
  return value as unknown as Receipt;
}

export type StoredEntry =
  | { readonly state: "started"; readonly payloadHash: string; readonly until: number }
  | {
      readonly state: "settled";
      readonly payloadHash: string;
      readonly receipt: Receipt;
      readonly until: number;
    };

/** An entry as stored ({state, payloadHash, until, receipt?}), or a reason it is not one. */
export function parseEntry(value: unknown): IdempotencyEntry<Receipt> | string {
  if (!isRecord(value)) return "entry is not an object";
  const { state, payloadHash, until } = value;
  if (typeof payloadHash !== "string" || payloadHash === "") return "entry has no payloadHash";
  if (typeof until !== "number" || !Number.isFinite(until)) return "entry has no finite until";
  if (state === "started") return { state, fingerprint: payloadHash, until };
  if (state !== "settled") return `entry has unknown state ${JSON.stringify(state)}`;
  const receipt = parseReceipt(value["receipt"]);
  if (typeof receipt === "string") return receipt;
  return { state, fingerprint: payloadHash, until, answer: receipt };
}

/** The stored form of an entry (what parseEntry reads back). */
export function storedEntry(entry: IdempotencyEntry<Receipt>): StoredEntry {
  return entry.state === "started"
    ? { state: "started", payloadHash: entry.fingerprint, until: entry.until }
    : { state: "settled", payloadHash: entry.fingerprint, receipt: entry.answer, until: entry.until };
}
