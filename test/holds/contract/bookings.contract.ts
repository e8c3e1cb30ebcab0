/** Contract: bookings in the store (§5.6, §5.7, §6 attendance, §7.2 proven principals). */
import { describe, expect, it } from "vitest";
import type { GatewayStore } from "../../../src/holds/port.js";
import {
  at,
  book,
  expectHeld,
  expectOk,
  expectRefused,
  expectTransitionRefused,
  holdRequest,
  MINUTE,
  newHost,
  NOW,
  T0,
  TTL,
} from "./support.js";

export function bookingsContract(store: () => GatewayStore): void {
  describe("bookings (§5.6, §5.7, §6)", () => {
    it("releasing a booking frees its time, idempotently", async () => {
      const hostId = newHost();
      const s = store();
      const bookingId = await book(s, holdRequest(hostId));
      expectRefused(await s.placeHold(holdRequest(hostId)), "slot_taken");
      const released = expectOk(await s.releaseBooking(hostId, bookingId, NOW));
      expect(released).toMatchObject({ bookingId, state: "released" });
      expect(expectOk(await s.releaseBooking(hostId, bookingId, NOW + 1))).toMatchObject({
        state: "released",
      });
      expectHeld(await s.placeHold(holdRequest(hostId)));
      expectTransitionRefused(await s.releaseBooking(hostId, "b-none", NOW), "not_found");
      expect(await s.getBooking(hostId, "b-none")).toBeUndefined();
    });

    it("indexes each booking in the step that records it: newest first, moves and releases keep it listed once", async () => {
      const hostId = newHost();
      const s = store();
      expect(await s.listBookingIds(hostId, 10)).toEqual([]);
      const first = await book(s, holdRequest(hostId, { interval: at(0, 60) }));
      const second = await book(s, holdRequest(hostId, { interval: at(60, 120), now: NOW + MINUTE }));
      expect(await s.listBookingIds(hostId, 10)).toEqual([second, first]);
      expect(await s.listBookingIds(hostId, 1)).toEqual([second]);
      expect(await s.listBookingIds(hostId, 0)).toEqual([]);
      const change = expectHeld(
        await s.placeHold(holdRequest(hostId, { interval: at(180, 240), overlapBookingId: first })),
      );
      expectOk(await s.moveBookingToHold(hostId, first, change.holdId, NOW + 2 * MINUTE));
      expectOk(await s.releaseBooking(hostId, second, NOW + 2 * MINUTE));
      expect(await s.listBookingIds(hostId, 10)).toEqual([second, first]);
      // A refused completeConfirm (a stale fence) records nothing, so it indexes nothing.
      const hold = expectHeld(await s.placeHold(holdRequest(hostId, { interval: at(300, 360) })));
      const begun = expectOk(await s.beginConfirm(hostId, hold.holdId, NOW, MINUTE));
      const stale = { bookingId: "b-stale", payload: "{}" };
      expectTransitionRefused(
        await s.completeConfirm(hostId, hold.holdId, begun.fence + 1, stale, NOW),
        "stale_fence",
      );
      expect(await s.listBookingIds(hostId, 10)).toEqual([second, first]);
      expect(await s.listBookingIds(newHost(), 10)).toEqual([]);
    });

    it("moves a booking to its change hold atomically, freeing the old time (§5.7)", async () => {
      const hostId = newHost();
      const s = store();
      const bookingId = await book(s, holdRequest(hostId, { interval: at(0, 60) }));
      const change = expectHeld(
        await s.placeHold(holdRequest(hostId, { interval: at(120, 180), overlapBookingId: bookingId })),
      );
      const moved = expectOk(await s.moveBookingToHold(hostId, bookingId, change.holdId, NOW + MINUTE));
      expect(moved).toMatchObject({
        bookingId,
        state: "active",
        interval: at(120, 180),
        allocations: change.allocations,
      });
      expect(await s.getBooking(hostId, bookingId)).toEqual(moved);
      expect(await s.getHold(hostId, change.holdId, NOW + MINUTE)).toMatchObject({
        state: "booked",
        bookingId,
      });
      expectHeld(await s.placeHold(holdRequest(hostId, { interval: at(0, 60), now: NOW + MINUTE })));
      expectRefused(
        await s.placeHold(holdRequest(hostId, { interval: at(150, 160), now: NOW + MINUTE })),
        "slot_taken",
      );
      // The change hold's TTL no longer matters: the time is the booking's.
      expectRefused(
        await s.placeHold(holdRequest(hostId, { interval: at(150, 160), now: NOW + 3 * TTL })),
        "slot_taken",
      );
    });

    it("moves onto a change hold that overlaps the booking's own time", async () => {
      const hostId = newHost();
      const s = store();
      const bookingId = await book(s, holdRequest(hostId, { interval: at(0, 60) }));
      const change = expectHeld(
        await s.placeHold(holdRequest(hostId, { interval: at(30, 90), overlapBookingId: bookingId })),
      );
      const moved = expectOk(await s.moveBookingToHold(hostId, bookingId, change.holdId, NOW));
      expect(moved.interval).toEqual(at(30, 90));
      expectHeld(await s.placeHold(holdRequest(hostId, { interval: at(0, 30) })));
      expectRefused(await s.placeHold(holdRequest(hostId, { interval: at(60, 90) })), "slot_taken");
    });

    it("refuses to move onto a lapsed or unknown hold, or to move a released booking", async () => {
      const hostId = newHost();
      const s = store();
      const bookingId = await book(s, holdRequest(hostId, { interval: at(0, 60) }));
      const change = expectHeld(await s.placeHold(holdRequest(hostId, { interval: at(120, 180) })));
      expectTransitionRefused(
        await s.moveBookingToHold(hostId, bookingId, change.holdId, change.expiresAt),
        "expired",
      );
      expectTransitionRefused(await s.moveBookingToHold(hostId, bookingId, "h-none", NOW), "not_found");
      expectTransitionRefused(await s.moveBookingToHold(hostId, "b-none", change.holdId, NOW), "not_found");
      expect(await s.getBooking(hostId, bookingId)).toMatchObject({ interval: at(0, 60), state: "active" });
      const next = expectHeld(await s.placeHold(holdRequest(hostId, { interval: at(240, 300) })));
      expectOk(await s.releaseBooking(hostId, bookingId, NOW));
      expectTransitionRefused(await s.moveBookingToHold(hostId, bookingId, next.holdId, NOW), "released");
      expect(await s.getHold(hostId, next.holdId, NOW)).toMatchObject({ state: "held" });
    });

    it("updates a booking's payload and records attendance", async () => {
      const hostId = newHost();
      const s = store();
      const bookingId = await book(s, holdRequest(hostId));
      expect(expectOk(await s.updateBookingPayload(hostId, bookingId, "v2"))).toMatchObject({
        payload: "v2",
      });
      expect(expectOk(await s.markAttendance(hostId, bookingId, "completed"))).toMatchObject({
        attendance: "completed",
      });
      expect(await s.getBooking(hostId, bookingId)).toMatchObject({ payload: "v2", attendance: "completed" });
      expectTransitionRefused(await s.updateBookingPayload(hostId, "b-none", "x"), "not_found");
      expectTransitionRefused(await s.markAttendance(hostId, "b-none", "no_show"), "not_found");
    });

    it("§4.2 ending an open-ended booking frees the time set aside beyond its end, in the same step", async () => {
      const hostId = newHost();
      const s = store();
      // Set aside three hours; the host ends it after 45 minutes.
      const bookingId = await book(s, holdRequest(hostId, { interval: at(0, 180) }));
      expectRefused(await s.placeHold(holdRequest(hostId, { interval: at(60, 120) })), "slot_taken");
      const ended = expectOk(await s.markAttendance(hostId, bookingId, "completed", T0 + 45 * MINUTE));
      expect(ended).toMatchObject({ attendance: "completed", interval: at(0, 45) });
      expect(await s.getBooking(hostId, bookingId)).toMatchObject({ interval: at(0, 45) });
      expect((await s.listOccupancy(hostId, ["bay-1"], at(0, 180), NOW)).get("bay-1")).toEqual([
        expect.objectContaining({ start: T0, end: T0 + 45 * MINUTE }),
      ]);
      expectHeld(await s.placeHold(holdRequest(hostId, { interval: at(45, 120) })));
      expectRefused(await s.placeHold(holdRequest(hostId, { interval: at(30, 60) })), "slot_taken");
    });

    it("§4.2 an end outside the booking's time changes nothing", async () => {
      const hostId = newHost();
      const s = store();
      const bookingId = await book(s, holdRequest(hostId, { interval: at(0, 60) }));
      expect(
        expectOk(await s.markAttendance(hostId, bookingId, "completed", T0 + 90 * MINUTE)),
      ).toMatchObject({
        interval: at(0, 60),
      });
      expectRefused(await s.placeHold(holdRequest(hostId, { interval: at(30, 60) })), "slot_taken");
    });

    it("proves a principal by a kept appointment: ended, not released, not a no-show (§7.2)", async () => {
      const hostId = newHost();
      const s = store();
      const owner = (principal: string) => ({ agentKey: "agent", principal, mandates: [] });
      const end = T0 + 60 * MINUTE;
      await book(s, holdRequest(hostId, { owner: owner("kept"), interval: at(0, 60) }));
      const noShow = await book(s, holdRequest(hostId, { owner: owner("absent"), interval: at(60, 120) }));
      const cancelled = await book(
        s,
        holdRequest(hostId, { owner: owner("cancelled"), interval: at(120, 180) }),
      );
      expectOk(await s.markAttendance(hostId, noShow, "no_show"));
      expectOk(await s.releaseBooking(hostId, cancelled, NOW));
      expect(await s.isPrincipalProven(hostId, "kept", end - 1)).toBe(false);
      expect(await s.isPrincipalProven(hostId, "kept", end)).toBe(true);
      const late = T0 + 300 * MINUTE;
      expect(await s.isPrincipalProven(hostId, "absent", late)).toBe(false);
      expect(await s.isPrincipalProven(hostId, "cancelled", late)).toBe(false);
      expect(await s.isPrincipalProven(hostId, "stranger", late)).toBe(false);
      expect(await s.isPrincipalProven(newHost(), "kept", late)).toBe(false);
    });
  });
}
