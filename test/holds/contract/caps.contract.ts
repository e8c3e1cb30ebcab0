/** Contract: caps (§7.1, §7.2), mandate counts (§3.3) and the walk-in reserve (§7.2). */
import { describe, expect, it } from "vitest";
import type { GatewayStore, HoldCaps, HoldOwner, WalkInReserve } from "../../../src/holds/port.js";
import {
  at,
  book,
  expectHeld,
  expectOk,
  expectRefused,
  holdRequest,
  MINUTE,
  newHost,
  NOW,
  req,
  T0,
  TTL,
} from "./support.js";

const owner = (agentKey: string, principal: string | null, extra: Partial<HoldOwner> = {}): HoldOwner => ({
  agentKey,
  principal,
  mandates: [],
  ...extra,
});

/** A fresh bay per call, so caps are the only thing that can refuse. */
let bayCounter = 0;
const freshBay = () => [req("bay", [[`bay-${++bayCounter}`, 1]])];

export function capsContract(store: () => GatewayStore): void {
  describe("caps (§7.1, §7.2)", () => {
    it("max_active_per_agent counts live holds of the agent key only", async () => {
      const hostId = newHost();
      const caps: HoldCaps = { principalProven: true, maxActivePerAgent: 2 };
      const place = (agentKey: string, now = NOW) =>
        store().placeHold(
          holdRequest(hostId, { caps, owner: owner(agentKey, "p"), requirements: freshBay(), now }),
        );
      const first = expectHeld(await place("agent-X"));
      expectHeld(await place("agent-X"));
      const refused = expectRefused(await place("agent-X"), "agent_limit");
      expect(refused.error.basis).toEqual({ policy: "holds.max_active_per_agent", limit: 2 });
      expectHeld(await place("agent-Y"));
      expectOk(await store().releaseHold(hostId, first.holdId, NOW));
      expectHeld(await place("agent-X"));
      // Once they lapse, they no longer count.
      expectHeld(await place("agent-X", NOW + TTL));
    });

    it("max_active_unproven bounds every unproven principal together, anonymous holds included", async () => {
      const hostId = newHost();
      const unproven: HoldCaps = { principalProven: false, maxActiveUnproven: 2 };
      const place = (who: HoldOwner, caps: HoldCaps = unproven) =>
        store().placeHold(holdRequest(hostId, { caps, owner: who, requirements: freshBay() }));
      // A returning guest draws on no pool: neither counted nor limited.
      const proven: HoldCaps = { principalProven: true, maxActiveUnproven: 2 };
      expectHeld(await place(owner("a0", "p-proven"), proven));
      expectHeld(await place(owner("a1", "p1")));
      expectHeld(await place(owner("a2", null)));
      const refused = expectRefused(await place(owner("a3", "p3")), "new_guest_pool_full");
      expect(refused.error.basis).toEqual({ policy: "holds.max_active_unproven", limit: 2 });
      expectRefused(await place(owner("a4", null)), "new_guest_pool_full");
      expectHeld(await place(owner("a5", "p-proven"), proven));
    });

    it("an honoured attester's vouchees draw on its own pool (§7.5)", async () => {
      const hostId = newHost();
      const caps: HoldCaps = { principalProven: false, maxActiveUnproven: 1, maxActivePerAttester: 1 };
      const place = (who: HoldOwner) =>
        store().placeHold(holdRequest(hostId, { caps, owner: who, requirements: freshBay() }));
      expectHeld(await place(owner("a1", "p1")));
      expectRefused(await place(owner("a2", "p2")), "new_guest_pool_full");
      expectHeld(await place(owner("a3", "p3", { attester: "phonecheck.example" })));
      const refused = expectRefused(
        await place(owner("a4", "p4", { attester: "phonecheck.example" })),
        "attester_pool_full",
      );
      expect(refused.error.basis).toEqual({ policy: "holds.max_active_per_attester", limit: 1 });
      expectHeld(await place(owner("a5", "p5", { attester: "idcheck.example" })));
      // Vouchees are not counted in the unproven pool either.
      const hostB = newHost();
      const placeB = (who: HoldOwner) =>
        store().placeHold(holdRequest(hostB, { caps, owner: who, requirements: freshBay() }));
      expectHeld(await placeB(owner("a1", "p1", { attester: "phonecheck.example" })));
      expectHeld(await placeB(owner("a2", "p2")));
    });

    it("counts holds and bookings against a mandate's max_bookings by (root iss, jti) (§3.3, §7.1)", async () => {
      const hostId = newHost();
      const s = store();
      const mandate = { rootIss: "iss-1", jti: "jti-1", maxBookings: 2 };
      const place = (rootIss = "iss-1") =>
        holdRequest(hostId, {
          owner: owner("agent", "p", { mandates: [{ ...mandate, rootIss }] }),
          requirements: freshBay(),
        });
      const bookingId = await book(s, place());
      const held = expectHeld(await s.placeHold(place()));
      const refused = expectRefused(await s.placeHold(place()), "mandate_limit");
      expect(refused.error.basis).toEqual({ policy: "mandate.max_bookings", limit: 2 });
      // The same jti under another root issuer is another mandate.
      expectHeld(await s.placeHold(place("iss-2")));
      expect(await s.countForMandate(hostId, "iss-1", "jti-1")).toBe(2);
      expect(await s.countForMandate(hostId, "iss-1", "jti-1", held.holdId)).toBe(1);
      expect(await s.countForMandate(hostId, "iss-2", "jti-1")).toBe(1);
      expect(await s.countForMandate(hostId, "iss-1", "jti-other")).toBe(0);
      expectOk(await s.releaseBooking(hostId, bookingId, NOW));
      expect(await s.countForMandate(hostId, "iss-1", "jti-1")).toBe(1);
      expectOk(await s.releaseHold(hostId, held.holdId, NOW));
      expect(await s.countForMandate(hostId, "iss-1", "jti-1")).toBe(0);
      expectHeld(await s.placeHold(place()));
    });

    it("checks every mandate link a hold carries", async () => {
      const hostId = newHost();
      const links = [
        { rootIss: "iss-1", jti: "wide", maxBookings: 5 },
        { rootIss: "iss-1", jti: "narrow", maxBookings: 1 },
      ];
      const request = () =>
        holdRequest(hostId, { owner: owner("agent", "p", { mandates: links }), requirements: freshBay() });
      expectHeld(await store().placeHold(request()));
      expectRefused(await store().placeHold(request()), "mandate_limit");
      expect(await store().countForMandate(hostId, "iss-1", "wide")).toBe(1);
    });
  });

  describe("walk-in reserve (§7.2)", () => {
    const chairs = (n: number) =>
      req(
        "chair",
        Array.from({ length: n }, (_, i) => [`chair-${i + 1}`, 1] as const),
      );
    const reserve = (typeCount: number, keep: number): WalkInReserve => ({
      resourceType: "chair",
      keep,
      typeCount,
    });

    it("keeps `keep` resources of the type from agents' holds and bookings", async () => {
      const hostId = newHost();
      const s = store();
      const caps: HoldCaps = { principalProven: true, walkInReserves: [reserve(3, 1)] };
      const place = (from: number, to: number) =>
        holdRequest(hostId, { caps, requirements: [chairs(3)], interval: at(from, to) });
      await book(s, place(0, 60));
      expectHeld(await s.placeHold(place(0, 60)));
      const refused = expectRefused(await s.placeHold(place(30, 90)), "walk_in_reserve");
      expect(refused.error.basis).toEqual({ policy: "walk_in_reserve", resource_type: "chair", keep: 1 });
      expectHeld(await s.placeHold(place(60, 120)));
      // Without the reserve, the third chair is free.
      expectHeld(await s.placeHold(holdRequest(hostId, { requirements: [chairs(3)], interval: at(30, 90) })));
    });

    it("does not count imported busy time as agents' occupation", async () => {
      const hostId = newHost();
      const s = store();
      const caps: HoldCaps = { principalProven: true, walkInReserves: [reserve(3, 1)] };
      await s.replaceBusy(hostId, "chair-1", "calendar", [at(0, 60)]);
      const place = () => holdRequest(hostId, { caps, requirements: [chairs(3)] });
      expect(expectHeld(await s.placeHold(place())).allocations).toEqual([
        { resourceId: "chair-2", units: 1 },
      ]);
      expect(expectHeld(await s.placeHold(place())).allocations).toEqual([
        { resourceId: "chair-3", units: 1 },
      ]);
    });

    it("counts agents' resources at each moment, not across the whole interval", async () => {
      const hostId = newHost();
      const s = store();
      const caps: HoldCaps = { principalProven: true, walkInReserves: [reserve(4, 2)] };
      const place = (from: number, to: number) =>
        holdRequest(hostId, { caps, requirements: [chairs(4)], interval: at(from, to) });
      const only = (id: string, from: number, to: number) =>
        holdRequest(hostId, { caps, requirements: [req("chair", [[id, 1]])], interval: at(from, to) });
      expectHeld(await s.placeHold(only("chair-1", 0, 60)));
      expectHeld(await s.placeHold(only("chair-2", 60, 120)));
      // Three chairs are taken by agents within 09:00–11:00, but never more than two at once.
      const third = expectHeld(await s.placeHold(place(0, 120)));
      expect(third.allocations).toEqual([{ resourceId: "chair-3", units: 1 }]);
      expectRefused(await s.placeHold(place(30, 90)), "walk_in_reserve");
    });

    it("offers alternatives outside the reserve", async () => {
      const hostId = newHost();
      const caps: HoldCaps = { principalProven: true, walkInReserves: [reserve(2, 1)] };
      expectHeld(await store().placeHold(holdRequest(hostId, { caps, requirements: [chairs(2)] })));
      const alternatives = [60, -60].map((m) => ({
        start: T0 + m * MINUTE,
        interval: at(m, m + 60),
        requirements: [chairs(2)],
      }));
      const refused = expectRefused(
        await store().placeHold(holdRequest(hostId, { caps, requirements: [chairs(2)], alternatives })),
        "walk_in_reserve",
      );
      expect(refused.error.alternatives).toEqual([T0 + 60 * MINUTE, T0 - 60 * MINUTE]);
    });
  });
}
