/** Contract: nonces (SchCP §3.2), idempotency records (§9.1) and reputation (§7.3). */
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import type { GatewayStore, IdempotencyScope, ReputationSubject } from "../../../src/holds/port.js";
import { ttlCapMs } from "../../../src/holds/reputation.js";
import { DAY, HOUR, MINUTE, newId, T0 } from "./support.js";

const WEEK = 7 * DAY;

export function sideStoresContract(store: () => GatewayStore): void {
  describe("nonces (RFC 9421 replay memory, §3.2)", () => {
    it("remembers (keyid, nonce) until its expiry, then forgets it", async () => {
      const s = store();
      const keyid = newId("key");
      const expiresAtSec = Math.floor(Date.now() / 1000) + 1;
      expect(await s.rememberIfNew(keyid, "n-1", expiresAtSec)).toBe(true);
      expect(await s.rememberIfNew(keyid, "n-1", expiresAtSec)).toBe(false);
      expect(await s.rememberIfNew(keyid, "n-2", expiresAtSec)).toBe(true);
      expect(await s.rememberIfNew(newId("key"), "n-1", expiresAtSec)).toBe(true);
      // Real time, because the port takes no clock here: wait until the expiry has passed.
      await sleep(Math.max(0, expiresAtSec * 1000 - Date.now()) + 100);
      expect(await s.rememberIfNew(keyid, "n-1", expiresAtSec + 300)).toBe(true);
      expect(await s.rememberIfNew(keyid, "n-1", expiresAtSec + 300)).toBe(false);
    });
  });

  describe("idempotency records (§9.1)", () => {
    const scope = (): IdempotencyScope => ({ agentKey: newId("agent"), idempotencyKey: newId("idem") });
    const response = { status: 201, body: '{"hold_id":"h_1"}' };
    const LOCK = 30_000;

    it("new, then in_progress while locked, then replay for the same body and conflict for another", async () => {
      const s = store();
      const sc = scope();
      const begun = await s.beginIdempotent(sc, "hash-1", T0, LOCK);
      expect(begun.state).toBe("new");
      if (begun.state !== "new") return;
      expect(await s.beginIdempotent(sc, "hash-1", T0 + 1, LOCK)).toEqual({ state: "in_progress" });
      const record = { requestHash: "hash-1", principal: "p-1", response };
      expect(await s.completeIdempotent(sc, begun.fence, record, T0 + 2, DAY)).toBe(true);
      const stored = { ...record, createdAt: T0 + 2 };
      expect(await s.beginIdempotent(sc, "hash-1", T0 + 3, LOCK)).toEqual({
        state: "replay",
        record: stored,
      });
      expect(await s.beginIdempotent(sc, "hash-2", T0 + 3, LOCK)).toEqual({
        state: "conflict",
        record: stored,
      });
      // Kept at least 24 h.
      expect(await s.beginIdempotent(sc, "hash-1", T0 + 2 + DAY - 1, LOCK)).toMatchObject({
        state: "replay",
      });
      // Scoped by agent key: another agent's identical key is its own request.
      expect(await s.beginIdempotent({ ...sc, agentKey: newId("agent") }, "hash-1", T0, LOCK)).toMatchObject({
        state: "new",
      });
    });

    it("abandon stores nothing and frees the key for a retry", async () => {
      const s = store();
      const sc = scope();
      const first = await s.beginIdempotent(sc, "hash-1", T0, LOCK);
      if (first.state !== "new") return expect.fail("expected new");
      await s.abandonIdempotent(sc, "not-the-fence");
      expect(await s.beginIdempotent(sc, "hash-1", T0 + 1, LOCK)).toEqual({ state: "in_progress" });
      await s.abandonIdempotent(sc, first.fence);
      const second = await s.beginIdempotent(sc, "hash-2", T0 + 2, LOCK);
      if (second.state !== "new") return expect.fail("expected new after abandon");
      expect(second.fence).not.toBe(first.fence);
      const record = { requestHash: "hash-1", principal: null, response };
      expect(await s.completeIdempotent(sc, first.fence, record, T0 + 3, DAY)).toBe(false);
    });

    it("a lock that outlived lockMs can be taken over; the old fence can no longer complete", async () => {
      const s = store();
      const sc = scope();
      const first = await s.beginIdempotent(sc, "hash-1", T0, LOCK);
      if (first.state !== "new") return expect.fail("expected new");
      expect(await s.beginIdempotent(sc, "hash-1", T0 + LOCK - 1, LOCK)).toEqual({ state: "in_progress" });
      const second = await s.beginIdempotent(sc, "hash-1", T0 + LOCK, LOCK);
      if (second.state !== "new") return expect.fail("expected the expired lock to be taken over");
      expect(second.fence).not.toBe(first.fence);
      const record = { requestHash: "hash-1", principal: "p", response };
      expect(await s.completeIdempotent(sc, first.fence, record, T0 + LOCK + 1, DAY)).toBe(false);
      expect(await s.completeIdempotent(sc, second.fence, record, T0 + LOCK + 1, DAY)).toBe(true);
      expect(await s.completeIdempotent(sc, second.fence, record, T0 + LOCK + 2, DAY)).toBe(false);
      expect(await s.beginIdempotent(sc, "hash-1", T0 + LOCK + 3, LOCK)).toMatchObject({ state: "replay" });
    });
  });

  describe("reputation (§7.3)", () => {
    const subject = (kind: ReputationSubject["kind"] = "agent"): ReputationSubject => ({
      kind,
      id: newId("s"),
    });
    const POLICY_MAX = 10 * MINUTE;

    it("starts empty", async () => {
      expect(await store().reputation(subject(), T0)).toEqual({
        expired: 0,
        confirmed: 0,
        released: 0,
        lifetime: 0,
        at: T0,
      });
    });

    it("decays counts with a half-life of 7 days; lifetime does not decay", async () => {
      const s = store();
      const who = subject("principal");
      await s.recordOutcome(who, "confirmed", T0);
      await s.recordOutcome(who, "released", T0);
      await s.recordOutcome(who, "released", T0 + WEEK);
      const counts = await s.reputation(who, T0 + 2 * WEEK);
      expect(counts.confirmed).toBeCloseTo(0.25, 9);
      expect(counts.released).toBeCloseTo(0.25 + 0.5, 9);
      expect(counts.expired).toBe(0);
      expect(counts.lifetime).toBe(3);
      expect(counts.at).toBe(T0 + 2 * WEEK);
      // Subjects of another kind with the same id are other subjects.
      expect((await s.reputation({ kind: "agent", id: who.id }, T0)).lifetime).toBe(0);
    });

    it("follows the spec's timeline: suspended, 60 s after ~a day, 120 s after ~3 days, full after a week", async () => {
      const s = store();
      const agent = subject();
      for (let i = 0; i < 5; i++) await s.recordOutcome(agent, "expired", T0);
      const cap = async (dt: number) => ttlCapMs(await s.reputation(agent, T0 + dt), POLICY_MAX);
      expect(await cap(0)).toBe(0);
      expect(await cap(1.05 * DAY)).toBe(0);
      expect(await cap(1.07 * DAY)).toBe(60_000);
      expect(await cap(2.9 * DAY)).toBe(60_000);
      expect(await cap(2.91 * DAY)).toBe(120_000);
      expect(await cap(WEEK - HOUR)).toBe(120_000);
      expect(await cap(WEEK + HOUR)).toBe(POLICY_MAX);
      // A relapse counts at full weight and drops the tier again.
      await s.recordOutcome(agent, "expired", T0 + WEEK + HOUR);
      expect(await cap(WEEK + HOUR)).toBe(120_000);
    });
  });
}
