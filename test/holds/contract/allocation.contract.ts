/** Contract: atomic allocation of resource time (SchCP §4.1, §5.2 alternatives, §5.7, §10). */
import { describe, expect, it } from "vitest";
import type { AlternativeCandidate, GatewayStore, Requirement } from "../../../src/holds/port.js";
import {
  at,
  BAY1,
  book,
  expectHeld,
  expectRefused,
  holdRequest,
  MINUTE,
  newHost,
  NOW,
  req,
  T0,
  TTL,
} from "./support.js";

export function allocationContract(store: () => GatewayStore): void {
  describe("allocation (§4.1)", () => {
    it("grants a free resource and records the hold as requested", async () => {
      const hostId = newHost();
      const request = holdRequest(hostId);
      const hold = expectHeld(await store().placeHold(request));
      expect(hold).toMatchObject({
        hostId,
        holdId: request.holdId,
        serviceId: "svc",
        interval: request.interval,
        state: "held",
        createdAt: NOW,
        expiresAt: NOW + TTL,
        ttlMs: TTL,
        owner: request.owner,
        payload: request.payload,
      });
      expect(hold.allocations).toEqual([{ resourceId: "bay-1", units: 1 }]);
      expect(hold.confirm).toBeUndefined();
      expect(hold.bookingId).toBeUndefined();
      expect(await store().getHold(hostId, request.holdId, NOW)).toEqual(hold);
    });

    it("never gives one resource to two overlapping holds; half-open intervals may touch", async () => {
      const hostId = newHost();
      expectHeld(await store().placeHold(holdRequest(hostId, { interval: at(0, 60) })));
      expectRefused(await store().placeHold(holdRequest(hostId, { interval: at(59, 120) })), "slot_taken");
      expectRefused(await store().placeHold(holdRequest(hostId, { interval: at(-30, 1) })), "slot_taken");
      expectHeld(await store().placeHold(holdRequest(hostId, { interval: at(60, 120) })));
      expectHeld(await store().placeHold(holdRequest(hostId, { interval: at(-60, 0) })));
    });

    it("takes candidates in order, skipping those that are not free", async () => {
      const hostId = newHost();
      const bays = req("bay", [
        ["bay-1", 1],
        ["bay-2", 1],
        ["bay-3", 1],
      ]);
      const first = expectHeld(await store().placeHold(holdRequest(hostId, { requirements: [bays] })));
      const second = expectHeld(await store().placeHold(holdRequest(hostId, { requirements: [bays] })));
      expect(first.allocations).toEqual([{ resourceId: "bay-1", units: 1 }]);
      expect(second.allocations).toEqual([{ resourceId: "bay-2", units: 1 }]);
    });

    it("meets each requirement with a distinct resource, even one with room for both", async () => {
      const hostId = newHost();
      const either = req("tech", [
        ["big", 2],
        ["small", 1],
      ]);
      const hold = expectHeld(
        await store().placeHold(holdRequest(hostId, { requirements: [either, either] })),
      );
      expect(hold.allocations).toEqual([
        { resourceId: "big", units: 1 },
        { resourceId: "small", units: 1 },
      ]);
      const onlyOne = req("tech", [["solo", 5]]);
      expectRefused(
        await store().placeHold(holdRequest(hostId, { requirements: [onlyOne, onlyOne] })),
        "slot_taken",
      );
    });

    it("finds a distinct assignment when the first choice would starve a later requirement", async () => {
      const hostId = newHost();
      const flexible = req("tech", [
        ["t-1", 1],
        ["t-2", 1],
      ]);
      const onlyFirst = req("tech", [["t-1", 1]]);
      const hold = expectHeld(
        await store().placeHold(holdRequest(hostId, { requirements: [flexible, onlyFirst] })),
      );
      expect(hold.allocations).toEqual([
        { resourceId: "t-2", units: 1 },
        { resourceId: "t-1", units: 1 },
      ]);
    });

    it("counts units of shared capacity (party_size)", async () => {
      const hostId = newHost();
      const studio = (units: number): Requirement => req("studio", [["studio", 3]], units);
      const first = expectHeld(await store().placeHold(holdRequest(hostId, { requirements: [studio(2)] })));
      expect(first.allocations).toEqual([{ resourceId: "studio", units: 2 }]);
      expectRefused(
        await store().placeHold(holdRequest(hostId, { requirements: [studio(2)] })),
        "slot_taken",
      );
      expectHeld(await store().placeHold(holdRequest(hostId, { requirements: [studio(1)] })));
      expectRefused(
        await store().placeHold(holdRequest(hostId, { requirements: [studio(1)] })),
        "slot_taken",
      );
      expectRefused(
        await store().placeHold(holdRequest(hostId, { requirements: [req("studio", [["other", 2]], 3)] })),
        "slot_taken",
      );
    });

    it("judges capacity by concurrent use over the interval, not by the sum of all overlaps", async () => {
      const hostId = newHost();
      const room = req("room", [["room", 2]]);
      expectHeld(await store().placeHold(holdRequest(hostId, { requirements: [room], interval: at(0, 60) })));
      expectHeld(
        await store().placeHold(holdRequest(hostId, { requirements: [room], interval: at(60, 120) })),
      );
      // Overlaps both (3 units in total) but never more than 2 at once.
      expectHeld(
        await store().placeHold(holdRequest(hostId, { requirements: [room], interval: at(0, 120) })),
      );
      // 09:30–10:00 would now hold 3 at once.
      expectRefused(
        await store().placeHold(holdRequest(hostId, { requirements: [room], interval: at(30, 90) })),
        "slot_taken",
      );
    });

    it("combines free resources largest first, each taken whole, ties in candidate order", async () => {
      const hostId = newHost();
      const tables = (units: number): Requirement =>
        req(
          "table",
          [
            ["t2", 2],
            ["t4a", 4],
            ["t8", 8],
            ["t4b", 4],
          ],
          units,
          true,
        );
      const big = expectHeld(await store().placeHold(holdRequest(hostId, { requirements: [tables(10)] })));
      expect(big.allocations).toEqual([
        { resourceId: "t8", units: 8 },
        { resourceId: "t4a", units: 4 },
      ]);
      const rest = expectHeld(await store().placeHold(holdRequest(hostId, { requirements: [tables(5)] })));
      expect(rest.allocations).toEqual([
        { resourceId: "t4b", units: 4 },
        { resourceId: "t2", units: 2 },
      ]);
      expectRefused(
        await store().placeHold(holdRequest(hostId, { requirements: [tables(1)] })),
        "slot_taken",
      );
    });

    it("combines only resources that are entirely free over the interval", async () => {
      const hostId = newHost();
      const tables = (units: number): Requirement =>
        req(
          "table",
          [
            ["t4", 4],
            ["t6", 6],
            ["t3", 3],
          ],
          units,
          true,
        );
      // One unit on t6 for part of the interval takes t6 out of any combination.
      expectHeld(
        await store().placeHold(
          holdRequest(hostId, { requirements: [req("table", [["t6", 6]])], interval: at(30, 45) }),
        ),
      );
      const hold = expectHeld(await store().placeHold(holdRequest(hostId, { requirements: [tables(7)] })));
      expect(hold.allocations).toEqual([
        { resourceId: "t4", units: 4 },
        { resourceId: "t3", units: 3 },
      ]);
      const hostB = newHost();
      expectRefused(
        await store().placeHold(holdRequest(hostB, { requirements: [tables(14)] })),
        "slot_taken",
      );
    });

    it("is all-or-nothing: a failing second requirement leaves the first unallocated", async () => {
      const hostId = newHost();
      const tech = req("tech", [["tech-1", 1]]);
      expectHeld(await store().placeHold(holdRequest(hostId, { requirements: [tech] })));
      expectRefused(
        await store().placeHold(holdRequest(hostId, { requirements: [BAY1, tech] })),
        "slot_taken",
      );
      const bayOnly = expectHeld(await store().placeHold(holdRequest(hostId, { requirements: [BAY1] })));
      expect(bayOnly.allocations).toEqual([{ resourceId: "bay-1", units: 1 }]);
    });

    it("honours imported busy time per resource and source, replacing a source's set (§10)", async () => {
      const hostId = newHost();
      const s = store();
      await s.replaceBusy(hostId, "bay-1", "calendar", [at(30, 45)]);
      await s.replaceBusy(hostId, "bay-1", "platform", [at(120, 180)]);
      expectRefused(await s.placeHold(holdRequest(hostId, { interval: at(0, 60) })), "slot_taken");
      expectRefused(await s.placeHold(holdRequest(hostId, { interval: at(150, 160) })), "slot_taken");
      await s.replaceBusy(hostId, "bay-1", "calendar", [at(60, 90)]);
      expectHeld(await s.placeHold(holdRequest(hostId, { interval: at(0, 60) })));
      expectRefused(await s.placeHold(holdRequest(hostId, { interval: at(60, 61) })), "slot_taken");
      expectRefused(await s.placeHold(holdRequest(hostId, { interval: at(150, 160) })), "slot_taken");
      await s.replaceBusy(hostId, "bay-1", "platform", []);
      expectHeld(await s.placeHold(holdRequest(hostId, { interval: at(150, 160) })));
    });

    it("treats a busy block as occupying a shared resource's whole capacity", async () => {
      const hostId = newHost();
      await store().replaceBusy(hostId, "studio", "calendar", [at(0, 10)]);
      expectRefused(
        await store().placeHold(holdRequest(hostId, { requirements: [req("studio", [["studio", 20]])] })),
        "slot_taken",
      );
    });

    it("answers slot_taken with up to five alternatives that could be held now, in the order given", async () => {
      const hostId = newHost();
      expectHeld(await store().placeHold(holdRequest(hostId, { interval: at(0, 60) })));
      expectHeld(await store().placeHold(holdRequest(hostId, { interval: at(90, 150) })));
      // Nearest first, as src/holds/alternatives.ts orders them; 30 and 60 minutes later collide.
      const offsets = [-60, 30, -120, 60, 180, -180, 240, 300, 360];
      const alternatives: AlternativeCandidate[] = offsets.map((offset) => ({
        start: T0 + offset * MINUTE,
        interval: at(offset, offset + 60),
        requirements: [BAY1],
      }));
      const refused = expectRefused(
        await store().placeHold(holdRequest(hostId, { interval: at(0, 60), alternatives })),
        "slot_taken",
      );
      expect(refused.error.alternatives).toEqual([-60, -120, 180, -180, 240].map((m) => T0 + m * MINUTE));
      const none = expectRefused(
        await store().placeHold(holdRequest(hostId, { interval: at(0, 60) })),
        "slot_taken",
      );
      expect(none.error.alternatives ?? []).toEqual([]);
    });

    it("refuses a hold id that is already in use at the host (hold_id_in_use)", async () => {
      const hostId = newHost();
      const first = expectHeld(await store().placeHold(holdRequest(hostId)));
      expectRefused(
        await store().placeHold(holdRequest(hostId, { holdId: first.holdId, interval: at(300, 360) })),
        "hold_id_in_use",
      );
      await store().releaseHold(hostId, first.holdId, NOW);
      expectRefused(
        await store().placeHold(holdRequest(hostId, { holdId: first.holdId, interval: at(300, 360) })),
        "hold_id_in_use",
      );
      // Another host may use the same id.
      expectHeld(await store().placeHold(holdRequest(newHost(), { holdId: first.holdId })));
    });

    it("lets a change hold overlap its own booking and nothing else (§5.7)", async () => {
      const hostId = newHost();
      const s = store();
      const bookingId = await book(s, holdRequest(hostId, { interval: at(0, 60) }));
      const otherBooking = await book(s, holdRequest(hostId, { interval: at(120, 180) }));
      expectRefused(await s.placeHold(holdRequest(hostId, { interval: at(30, 90) })), "slot_taken");
      expectHeld(
        await s.placeHold(holdRequest(hostId, { interval: at(30, 90), overlapBookingId: bookingId })),
      );
      expectRefused(
        await s.placeHold(holdRequest(hostId, { interval: at(100, 130), overlapBookingId: bookingId })),
        "slot_taken",
      );
      expect(otherBooking).not.toBe(bookingId);
    });

    it("frees a lapsed hold's time for the next allocation and reports the expiry once", async () => {
      const hostId = newHost();
      const s = store();
      const lapsing = expectHeld(await s.placeHold(holdRequest(hostId)));
      const expiresAt = lapsing.expiresAt;
      expectRefused(await s.placeHold(holdRequest(hostId, { now: expiresAt - 1 })), "slot_taken");
      const next = expectHeld(await s.placeHold(holdRequest(hostId, { now: expiresAt })));
      expect(next.allocations).toEqual([{ resourceId: "bay-1", units: 1 }]);
      const events = await s.takeExpiryEvents(hostId, 10);
      expect(events).toEqual([
        { hostId, holdId: lapsing.holdId, owner: lapsing.owner, expiredAt: expiresAt },
      ]);
      expect(await s.takeExpiryEvents(hostId, 10)).toEqual([]);
      expect(await s.sweepExpired(hostId, expiresAt + 1, 10)).toBe(0);
      expect(await s.takeExpiryEvents(hostId, 10)).toEqual([]);
      const read = await s.getHold(hostId, lapsing.holdId, expiresAt + 1);
      expect(read).toMatchObject({ state: "expired", endedAt: expiresAt });
    });
  });
}
