/**
 * The in-process booking.create cache: the core's memory store with OSBP's times. The
 * reference behaviour the file and Redis stores match (one contract suite runs against all
 * three), and the store unit tests of adapters use.
 */
import { MemoryIdempotencyStore as CoreMemoryStore } from "../../../booking/idempotency/index.js";
import type { Receipt } from "../../../protocol/osbp/index.js";
import {
  DEFAULT_LEASE_MS,
  DEFAULT_RETENTION_MS,
  type IdempotencyTimings,
  type OsbpIdempotencyStore,
} from "./port.js";

export class MemoryIdempotencyStore extends CoreMemoryStore<Receipt> implements OsbpIdempotencyStore {
  constructor(timings: IdempotencyTimings = {}) {
    super({
      leaseMs: timings.leaseMs ?? DEFAULT_LEASE_MS,
      retentionMs: timings.retentionMs ?? DEFAULT_RETENTION_MS,
    });
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
