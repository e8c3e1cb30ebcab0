/**
 * The idempotency store contract (OSBP "booking.create": a settled create replays its
 * receipt, the same key with another payload is idempotency_conflict; "Server Obligations":
 * the last bullet), run against every OsbpIdempotencyStore: Memory, File and Redis. These
 * stores claim an attempt by its payload hash (src/booking/idempotency/entry.ts), so `held`
 * names the attempt a begin with that hash started.
 *
 * Times are injected (`now`), so lease and retention expiry need no waiting. Each test opens
 * a fresh store through the factory and uses its own keys.
 */
import { randomBytes } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import type { IdempotencyAttempt, IdempotencyKey } from "../../../../src/booking/idempotency/index.js";
import type {
  IdempotencyTimings,
  OsbpIdempotencyStore,
} from "../../../../src/edges/osbp/idempotency/port.js";
import type { Receipt } from "../../../../src/protocol/osbp/index.js";

export interface OpenedStore {
  readonly store: OsbpIdempotencyStore;
  cleanup(): Promise<void>;
}
export type IdempotencyStoreFactory = (timings: Required<IdempotencyTimings>) => Promise<OpenedStore>;

export const LEASE_MS = 60_000;
export const RETENTION_MS = 3_600_000;
export const T0 = Date.UTC(2026, 4, 1, 19, 0, 0);

export const HASH_A = "a".repeat(64);
export const HASH_B = "b".repeat(64);

export const receipt = (n = 1): Receipt => ({
  id: `rcpt_${n}`,
  booking_id: `bk_${n}`,
  text: `Haircut with Jordan Lee on 2026-05-05 at 13:00 (receipt ${n})`,
});

export const freshKey = (): IdempotencyKey => ({
  scope: "org_1",
  key: `idem_${randomBytes(6).toString("hex")}`,
});

/** The attempt on `id` that a begin with `hash` started. */
export const held = (id: IdempotencyKey, hash: string): IdempotencyAttempt => ({
  id,
  fingerprint: hash,
  claim: hash,
});

export function idempotencyStoreContract(name: string, factory: IdempotencyStoreFactory): void {
  describe(`OSBP idempotency store contract: ${name}`, () => {
    const cleanups: Array<() => Promise<void>> = [];
    afterEach(async () => {
      for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
    });
    async function open(): Promise<OsbpIdempotencyStore> {
      const opened = await factory({ leaseMs: LEASE_MS, retentionMs: RETENTION_MS });
      cleanups.push(() => opened.cleanup());
      return opened.store;
    }

    it("starts the first attempt and reports in_progress to a concurrent begin with the same hash", async () => {
      const store = await open();
      const key = freshKey();
      expect(await store.begin(key, HASH_A, T0)).toEqual({ kind: "started", claim: HASH_A });
      expect(await store.begin(key, HASH_A, T0 + 1)).toEqual({ kind: "in_progress" });
    });

    it('"booking.create": same key with a different payload hash is a conflict while started', async () => {
      const store = await open();
      const key = freshKey();
      await store.begin(key, HASH_A, T0);
      expect(await store.begin(key, HASH_B, T0 + 1)).toEqual({ kind: "conflict" });
    });

    it('"booking.create": a settled create replays the same receipt for the same payload', async () => {
      const store = await open();
      const key = freshKey();
      await store.begin(key, HASH_A, T0);
      await store.settle(held(key, HASH_A), receipt(7), T0 + 10);
      expect(await store.begin(key, HASH_A, T0 + 20)).toEqual({ kind: "replay", answer: receipt(7) });
      // A replay is not consumed: every retry gets it.
      expect(await store.begin(key, HASH_A, T0 + 30)).toEqual({ kind: "replay", answer: receipt(7) });
    });

    it('"booking.create": same key with a different payload hash is a conflict once settled', async () => {
      const store = await open();
      const key = freshKey();
      await store.begin(key, HASH_A, T0);
      await store.settle(held(key, HASH_A), receipt(), T0 + 10);
      expect(await store.begin(key, HASH_B, T0 + 20)).toEqual({ kind: "conflict" });
    });

    it("release lets the same attempt start again", async () => {
      const store = await open();
      const key = freshKey();
      await store.begin(key, HASH_A, T0);
      await store.release(held(key, HASH_A));
      expect(await store.begin(key, HASH_A, T0 + 1)).toEqual({ kind: "started", claim: HASH_A });
    });

    it("a released key can start with another payload (nothing was created under it)", async () => {
      const store = await open();
      const key = freshKey();
      await store.begin(key, HASH_A, T0);
      await store.release(held(key, HASH_A));
      expect(await store.begin(key, HASH_B, T0 + 1)).toEqual({ kind: "started", claim: HASH_B });
    });

    it("an abandoned lease expires after leaseMs (until <= now counts as absent)", async () => {
      const store = await open();
      const key = freshKey();
      await store.begin(key, HASH_A, T0);
      expect(await store.begin(key, HASH_A, T0 + LEASE_MS - 1)).toEqual({ kind: "in_progress" });
      expect(await store.begin(key, HASH_A, T0 + LEASE_MS)).toEqual({ kind: "started", claim: HASH_A });
      // The new lease runs from the second begin.
      expect(await store.begin(key, HASH_A, T0 + 2 * LEASE_MS - 1)).toEqual({ kind: "in_progress" });
    });

    it("an expired lease no longer conflicts with another payload", async () => {
      const store = await open();
      const key = freshKey();
      await store.begin(key, HASH_A, T0);
      expect(await store.begin(key, HASH_B, T0 + LEASE_MS)).toEqual({ kind: "started", claim: HASH_B });
    });

    it("a settled receipt is replayed for retentionMs after settle, then forgotten", async () => {
      const store = await open();
      const key = freshKey();
      const settledAt = T0 + 5_000;
      await store.begin(key, HASH_A, T0);
      await store.settle(held(key, HASH_A), receipt(), settledAt);
      expect(await store.begin(key, HASH_A, settledAt + RETENTION_MS - 1)).toEqual({
        kind: "replay",
        answer: receipt(),
      });
      expect(await store.begin(key, HASH_A, settledAt + RETENTION_MS)).toEqual({
        kind: "started",
        claim: HASH_A,
      });
    });

    it("settle by a non-holder (other hash, or no lease at all) is ignored", async () => {
      const store = await open();
      const key = freshKey();
      await store.begin(key, HASH_A, T0);
      await store.settle(held(key, HASH_B), receipt(2), T0 + 1);
      expect(await store.begin(key, HASH_A, T0 + 2)).toEqual({ kind: "in_progress" });

      const never = freshKey();
      await store.settle(held(never, HASH_A), receipt(3), T0);
      expect(await store.begin(never, HASH_A, T0 + 1)).toEqual({ kind: "started", claim: HASH_A });
    });

    it("release by a non-holder is ignored, and a settled entry is never released", async () => {
      const store = await open();
      const key = freshKey();
      await store.begin(key, HASH_A, T0);
      await store.release(held(key, HASH_B));
      expect(await store.begin(key, HASH_A, T0 + 1)).toEqual({ kind: "in_progress" });

      await store.settle(held(key, HASH_A), receipt(), T0 + 2);
      await store.release(held(key, HASH_A));
      expect(await store.begin(key, HASH_A, T0 + 3)).toEqual({ kind: "replay", answer: receipt() });
    });

    it("a second settle does not replace the first receipt", async () => {
      const store = await open();
      const key = freshKey();
      await store.begin(key, HASH_A, T0);
      await store.settle(held(key, HASH_A), receipt(1), T0 + 1);
      await store.settle(held(key, HASH_A), receipt(2), T0 + 2);
      expect(await store.begin(key, HASH_A, T0 + 3)).toEqual({ kind: "replay", answer: receipt(1) });
    });

    it("keeps keys apart", async () => {
      const store = await open();
      const [k1, k2] = [freshKey(), freshKey()];
      await store.begin(k1, HASH_A, T0);
      await store.settle(held(k1, HASH_A), receipt(1), T0 + 1);
      expect(await store.begin(k2, HASH_B, T0 + 2)).toEqual({ kind: "started", claim: HASH_B });
      expect(await store.begin(k1, HASH_A, T0 + 3)).toEqual({ kind: "replay", answer: receipt(1) });
    });

    it("many concurrent begins on one key: exactly one is started, the rest in_progress", async () => {
      const store = await open();
      const key = freshKey();
      const results = await Promise.all(Array.from({ length: 50 }, () => store.begin(key, HASH_A, T0)));
      expect(results.filter((r) => r.kind === "started")).toHaveLength(1);
      expect(results.filter((r) => r.kind === "in_progress")).toHaveLength(49);
    });

    it("concurrent begins with different payloads: one started, the others conflict", async () => {
      const store = await open();
      const key = freshKey();
      const hashes = Array.from({ length: 20 }, (_, i) => String(i).padStart(64, "0"));
      const results = await Promise.all(hashes.map((hash) => store.begin(key, hash, T0)));
      expect(results.filter((r) => r.kind === "started")).toHaveLength(1);
      expect(results.filter((r) => r.kind === "conflict")).toHaveLength(19);
    });

    it("concurrent begins on distinct keys all start", async () => {
      const store = await open();
      const results = await Promise.all(
        Array.from({ length: 20 }, () => store.begin(freshKey(), HASH_A, T0)),
      );
      expect(results.every((r) => r.kind === "started")).toBe(true);
    });

    it("replays a receipt whose text carries quotes, newlines and non-ASCII intact", async () => {
      const store = await open();
      const key = freshKey();
      const odd: Receipt = { id: "rcpt_ü", booking_id: 'bk_"1"', text: 'Zoë\n"Café" — 13:00 ✂ \\ {}' };
      await store.begin(key, HASH_A, T0);
      await store.settle(held(key, HASH_A), odd, T0 + 1);
      expect(await store.begin(key, HASH_A, T0 + 2)).toEqual({ kind: "replay", answer: odd });
    });
  });
}
