/** Contract: hold lifecycle held → confirming → booked, or released / expired (§5.3, §5.4, §6, §7.2). */
import { describe, expect, it } from "vitest";
import type { GatewayStore } from "../../../src/holds/port.js";
import {
  at,
  expectHeld,
  expectOk,
  expectRefused,
  expectTransitionRefused,
  holdRequest,
  MINUTE,
  newHost,
  newId,
  NOW,
  TTL,
} from "./support.js";

const LEASE = 2 * MINUTE;

export function lifecycleContract(store: () => GatewayStore): void {
  describe("release (§5.4, §7.2)", () => {
    it("releases a held hold, frees its time, and is idempotent", async () => {
      const hostId = newHost();
      const s = store();
      const hold = expectHeld(await s.placeHold(holdRequest(hostId)));
      const first = expectOk(await s.releaseHold(hostId, hold.holdId, NOW + MINUTE));
      expect(first).toMatchObject({ changed: true, countsAsExpiry: false });
      expect(first.hold).toMatchObject({
        state: "released",
        endedAt: NOW + MINUTE,
        allocations: hold.allocations,
      });
      const again = expectOk(await s.releaseHold(hostId, hold.holdId, NOW + 2 * MINUTE));
      expect(again).toMatchObject({ changed: false, countsAsExpiry: false });
      expect(again.hold).toMatchObject({ state: "released", endedAt: NOW + MINUTE });
      expectHeld(await s.placeHold(holdRequest(hostId, { now: NOW + 2 * MINUTE })));
      expect(await s.getHold(hostId, hold.holdId, NOW + 3 * MINUTE)).toMatchObject({ state: "released" });
    });

    it("counts a release in the last fifth of the TTL as an expiry", async () => {
      const hostId = newHost();
      const s = store();
      const early = expectHeld(await s.placeHold(holdRequest(hostId, { interval: at(0, 60) })));
      const late = expectHeld(await s.placeHold(holdRequest(hostId, { interval: at(60, 120) })));
      const fifth = TTL / 5;
      const e = expectOk(await s.releaseHold(hostId, early.holdId, early.expiresAt - fifth - 1));
      expect(e).toMatchObject({ changed: true, countsAsExpiry: false });
      const l = expectOk(await s.releaseHold(hostId, late.holdId, late.expiresAt - fifth));
      expect(l).toMatchObject({ changed: true, countsAsExpiry: true });
      expect(l.hold.state).toBe("released");
      expect(await s.takeExpiryEvents(hostId, 10)).toEqual([]);
    });

    it("releasing a lapsed hold changes nothing: it expired (reported once)", async () => {
      const hostId = newHost();
      const s = store();
      const hold = expectHeld(await s.placeHold(holdRequest(hostId)));
      const r = expectOk(await s.releaseHold(hostId, hold.holdId, hold.expiresAt));
      expect(r).toMatchObject({ changed: false, countsAsExpiry: false });
      expect(r.hold).toMatchObject({ state: "expired", endedAt: hold.expiresAt });
      await s.sweepExpired(hostId, hold.expiresAt + MINUTE, 10);
      const events = await s.takeExpiryEvents(hostId, 10);
      expect(events.map((e) => e.holdId)).toEqual([hold.holdId]);
    });

    it("does not find what it never held", async () => {
      const hostId = newHost();
      expectTransitionRefused(await store().releaseHold(hostId, "h-none", NOW), "not_found");
      expect(await store().getHold(hostId, "h-none", NOW)).toBeUndefined();
    });
  });

  describe("confirming (§5.3; fenced, leased)", () => {
    it("books: held → confirming → booked, the hold's allocations becoming the booking's", async () => {
      const hostId = newHost();
      const s = store();
      const hold = expectHeld(await s.placeHold(holdRequest(hostId)));
      const begun = expectOk(await s.beginConfirm(hostId, hold.holdId, NOW + MINUTE, LEASE));
      expect(begun.hold).toMatchObject({
        state: "confirming",
        confirm: { fence: begun.fence, leaseUntil: NOW + MINUTE + LEASE },
      });
      expect(await s.getHold(hostId, hold.holdId, NOW + MINUTE)).toMatchObject({ state: "confirming" });
      const bookingId = newId("b");
      const booking = expectOk(
        await s.completeConfirm(
          hostId,
          hold.holdId,
          begun.fence,
          { bookingId, payload: "receipt" },
          NOW + MINUTE,
        ),
      );
      expect(booking).toMatchObject({
        hostId,
        bookingId,
        holdId: hold.holdId,
        serviceId: hold.serviceId,
        interval: hold.interval,
        owner: hold.owner,
        allocations: hold.allocations,
        state: "active",
        payload: "receipt",
      });
      expect(booking.attendance).toBeUndefined();
      expect(await s.getBooking(hostId, bookingId)).toEqual(booking);
      const after = await s.getHold(hostId, hold.holdId, NOW + 2 * MINUTE);
      expect(after).toMatchObject({ state: "booked", bookingId, endedAt: NOW + MINUTE });
      expect(after?.confirm).toBeUndefined();
      // The booking keeps the time, long after the hold's TTL.
      expectRefused(await s.placeHold(holdRequest(hostId, { now: NOW + 10 * TTL })), "slot_taken");
      expectTransitionRefused(await s.releaseHold(hostId, hold.holdId, NOW + 2 * MINUTE), "booked");
    });

    it("cannot lapse while confirming, nor be released or confirmed twice", async () => {
      const hostId = newHost();
      const s = store();
      const hold = expectHeld(await s.placeHold(holdRequest(hostId)));
      const begun = expectOk(await s.beginConfirm(hostId, hold.holdId, hold.expiresAt - 1, LEASE));
      const later = hold.expiresAt + MINUTE;
      expect(await s.getHold(hostId, hold.holdId, later)).toMatchObject({ state: "confirming" });
      expectRefused(await s.placeHold(holdRequest(hostId, { now: later })), "slot_taken");
      expect(await s.sweepExpired(hostId, later, 10)).toBe(0);
      expect(await s.takeExpiryEvents(hostId, 10)).toEqual([]);
      expectTransitionRefused(await s.releaseHold(hostId, hold.holdId, later), "confirming");
      expectTransitionRefused(await s.beginConfirm(hostId, hold.holdId, later, LEASE), "confirming");
      expectOk(
        await s.completeConfirm(
          hostId,
          hold.holdId,
          begun.fence,
          { bookingId: newId("b"), payload: "" },
          later,
        ),
      );
    });

    it("refuses to confirm a lapsed hold", async () => {
      const hostId = newHost();
      const s = store();
      const hold = expectHeld(await s.placeHold(holdRequest(hostId)));
      expectTransitionRefused(await s.beginConfirm(hostId, hold.holdId, hold.expiresAt, LEASE), "expired");
      expectTransitionRefused(await s.beginConfirm(hostId, "h-none", NOW, LEASE), "not_found");
      const released = expectHeld(await s.placeHold(holdRequest(hostId, { interval: at(120, 180) })));
      expectOk(await s.releaseHold(hostId, released.holdId, NOW));
      expectTransitionRefused(await s.beginConfirm(hostId, released.holdId, NOW, LEASE), "released");
    });

    it("refuses a stale fence", async () => {
      const hostId = newHost();
      const s = store();
      const hold = expectHeld(await s.placeHold(holdRequest(hostId)));
      const begun = expectOk(await s.beginConfirm(hostId, hold.holdId, NOW, LEASE));
      const stale = begun.fence - 1;
      expectTransitionRefused(
        await s.completeConfirm(hostId, hold.holdId, stale, { bookingId: newId("b"), payload: "" }, NOW),
        "stale_fence",
      );
      expectTransitionRefused(
        await s.abortConfirm(hostId, hold.holdId, stale, "release", NOW),
        "stale_fence",
      );
      expect(await s.getHold(hostId, hold.holdId, NOW)).toMatchObject({ state: "confirming" });
    });

    it("hands a hold whose lease ended to a reconciler with a new fence, without freeing its time", async () => {
      const hostId = newHost();
      const s = store();
      const hold = expectHeld(await s.placeHold(holdRequest(hostId)));
      const other = expectHeld(await s.placeHold(holdRequest(hostId, { interval: at(120, 180) })));
      const begun = expectOk(await s.beginConfirm(hostId, hold.holdId, NOW, LEASE));
      expectOk(await s.beginConfirm(hostId, other.holdId, NOW + MINUTE, LEASE));
      expect(await s.claimStuckConfirming(hostId, NOW + LEASE - 1, LEASE, 10)).toEqual([]);
      const leaseEnd = NOW + LEASE;
      const claimed = await s.claimStuckConfirming(hostId, leaseEnd, LEASE, 10);
      expect(claimed).toHaveLength(1);
      const [stuck] = claimed;
      expect(stuck?.hold.holdId).toBe(hold.holdId);
      expect(stuck?.fence).toBeGreaterThan(begun.fence);
      expect(stuck?.hold).toMatchObject({
        state: "confirming",
        confirm: { fence: stuck?.fence, leaseUntil: leaseEnd + LEASE },
      });
      // The new lease has not ended, so nobody else claims it.
      expect(await s.claimStuckConfirming(hostId, leaseEnd + 1, LEASE, 10)).toEqual([]);
      expectRefused(await s.placeHold(holdRequest(hostId, { now: hold.expiresAt + 1 })), "slot_taken");
      expectTransitionRefused(
        await s.completeConfirm(
          hostId,
          hold.holdId,
          begun.fence,
          { bookingId: newId("b"), payload: "" },
          leaseEnd,
        ),
        "stale_fence",
      );
      expectOk(
        await s.completeConfirm(
          hostId,
          hold.holdId,
          stuck?.fence ?? -1,
          { bookingId: newId("b"), payload: "" },
          leaseEnd,
        ),
      );
    });

    it("claims at most `limit` stuck holds per call", async () => {
      const hostId = newHost();
      const s = store();
      for (const from of [0, 60, 120]) {
        const hold = expectHeld(await s.placeHold(holdRequest(hostId, { interval: at(from, from + 60) })));
        expectOk(await s.beginConfirm(hostId, hold.holdId, NOW, LEASE));
      }
      expect(await s.claimStuckConfirming(hostId, NOW + LEASE, LEASE, 2)).toHaveLength(2);
      expect(await s.claimStuckConfirming(hostId, NOW + LEASE, LEASE, 2)).toHaveLength(1);
    });

    it("aborts: release frees the time; held returns it until its original expiry with a higher fence next", async () => {
      const hostId = newHost();
      const s = store();
      const a = expectHeld(await s.placeHold(holdRequest(hostId, { interval: at(0, 60) })));
      const b = expectHeld(await s.placeHold(holdRequest(hostId, { interval: at(60, 120) })));
      const fa = expectOk(await s.beginConfirm(hostId, a.holdId, NOW, LEASE));
      const released = expectOk(await s.abortConfirm(hostId, a.holdId, fa.fence, "release", NOW + 1));
      expect(released).toMatchObject({ state: "released", endedAt: NOW + 1 });
      expect(released.confirm).toBeUndefined();
      expectHeld(await s.placeHold(holdRequest(hostId, { interval: at(0, 60), now: NOW + 2 })));

      const fb = expectOk(await s.beginConfirm(hostId, b.holdId, NOW, LEASE));
      const back = expectOk(await s.abortConfirm(hostId, b.holdId, fb.fence, "held", NOW + 1));
      expect(back).toMatchObject({ state: "held", expiresAt: b.expiresAt });
      expect(back.confirm).toBeUndefined();
      expectTransitionRefused(
        await s.abortConfirm(hostId, b.holdId, fb.fence, "held", NOW + 1),
        "invalid_state",
      );
      const again = expectOk(await s.beginConfirm(hostId, b.holdId, NOW + 2, LEASE));
      expect(again.fence).toBeGreaterThan(fb.fence);
      expectOk(await s.abortConfirm(hostId, b.holdId, again.fence, "held", b.expiresAt + 1));
      expect(await s.getHold(hostId, b.holdId, b.expiresAt + 1)).toMatchObject({ state: "expired" });
      expectHeld(await s.placeHold(holdRequest(hostId, { interval: at(60, 120), now: b.expiresAt + 1 })));
      expect((await s.takeExpiryEvents(hostId, 10)).map((e) => e.holdId)).toEqual([b.holdId]);
    });
  });

  describe("expiry sweeper and events (§7.3 webhooks)", () => {
    it("expires lapsed holds oldest first, up to the limit, reporting each once", async () => {
      const hostId = newHost();
      const s = store();
      const a = expectHeld(await s.placeHold(holdRequest(hostId, { interval: at(0, 60) })));
      const b = expectHeld(await s.placeHold(holdRequest(hostId, { interval: at(60, 120), now: NOW + 1 })));
      const live = expectHeld(
        await s.placeHold(holdRequest(hostId, { interval: at(120, 180), ttlMs: 3 * TTL })),
      );
      const now = b.expiresAt;
      expect(await s.sweepExpired(hostId, now, 1)).toBe(1);
      expect(await s.sweepExpired(hostId, now, 10)).toBe(1);
      expect(await s.sweepExpired(hostId, now, 10)).toBe(0);
      const first = await s.takeExpiryEvents(hostId, 1);
      const rest = await s.takeExpiryEvents(hostId, 10);
      expect([...first, ...rest]).toEqual([
        { hostId, holdId: a.holdId, owner: a.owner, expiredAt: a.expiresAt },
        { hostId, holdId: b.holdId, owner: b.owner, expiredAt: b.expiresAt },
      ]);
      expect(await s.takeExpiryEvents(hostId, 10)).toEqual([]);
      expect(await s.getHold(hostId, live.holdId, now)).toMatchObject({ state: "held" });
      // Swept time is free again.
      expectHeld(await s.placeHold(holdRequest(hostId, { interval: at(0, 120), now })));
      expect(await s.listHosts()).toContain(hostId);
    });
  });
}
