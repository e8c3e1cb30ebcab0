/** Contract: the read-only occupancy snapshot (§5.1) and compare-and-set booking updates. */
import { describe, expect, it } from "vitest";
import type { GatewayStore } from "../../../src/holds/port.js";
import {
  at,
  book,
  expectHeld,
  expectOk,
  expectTransitionRefused,
  holdRequest,
  MINUTE,
  newHost,
  NOW,
  T0,
  TTL,
} from "./support.js";

export function occupancyContract(store: () => GatewayStore): void {
  describe("occupancy snapshot and booking compare-and-set", () => {
    it("lists live holds, bookings and busy blocks overlapping the range, and not lapsed holds", async () => {
      const hostId = newHost();
      const s = store();
      expectHeld(await s.placeHold(holdRequest(hostId, { interval: at(0, 60) })));
      await book(s, holdRequest(hostId, { interval: at(120, 180) }));
      await s.replaceBusy(hostId, "bay-1", "calendar", [at(240, 300)]);
      const all = await s.listOccupancy(hostId, ["bay-1", "bay-9"], at(0, 600), NOW);
      const entries = [...(all.get("bay-1") ?? [])].sort((a, b) => a.start - b.start);
      expect(entries).toEqual([
        { ...at(0, 60), units: 1, agent: true },
        { ...at(120, 180), units: 1, agent: true },
        { ...at(240, 300), units: Number.POSITIVE_INFINITY, agent: false },
      ]);
      expect(all.get("bay-9")).toEqual([]);
      // Half-open ranges: a range ending where an entry starts does not overlap it.
      expect((await s.listOccupancy(hostId, ["bay-1"], at(60, 120), NOW)).get("bay-1")).toEqual([]);
      // Once the first hold's TTL has passed it no longer occupies anything.
      const later = await s.listOccupancy(hostId, ["bay-1"], at(0, 60), NOW + TTL + MINUTE);
      expect(later.get("bay-1")).toEqual([]);
      expect(T0).toBeGreaterThan(NOW);
    });

    it("updates a booking's payload only when it still holds the expected payload", async () => {
      const hostId = newHost();
      const s = store();
      const bookingId = await book(s, holdRequest(hostId));
      const first = (await s.getBooking(hostId, bookingId))?.payload ?? "";
      expectOk(await s.updateBookingPayload(hostId, bookingId, "v2", first));
      expectTransitionRefused(await s.updateBookingPayload(hostId, bookingId, "v3", first), "stale");
      expect((await s.getBooking(hostId, bookingId))?.payload).toBe("v2");
      expectOk(await s.updateBookingPayload(hostId, bookingId, "v3"));
      expect((await s.getBooking(hostId, bookingId))?.payload).toBe("v3");
    });
  });
}
