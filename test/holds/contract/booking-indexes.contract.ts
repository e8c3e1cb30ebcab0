/**
 * Contract: the booking indexes (src/holds/port.ts listBookings, bookingsOverlapping,
 * bookingsDue, bookingIdByKey), written in the step that writes each booking or payload.
 */
import { describe, expect, it } from "vitest";
import type { BookingIndexEntry, GatewayStore, PlaceHoldRequest } from "../../../src/holds/port.js";
import {
  at,
  BAY1,
  expectHeld,
  expectOk,
  expectTransitionRefused,
  holdRequest,
  MINUTE,
  newHost,
  newId,
  NOW,
  req,
} from "./support.js";

/** A booking recorded with an index entry; returns its id. */
export async function bookIndexed(
  store: GatewayStore,
  request: PlaceHoldRequest,
  index?: BookingIndexEntry,
  payload = "{}",
): Promise<string> {
  const hold = expectHeld(await store.placeHold(request));
  const begun = expectOk(await store.beginConfirm(request.hostId, hold.holdId, request.now, MINUTE));
  const bookingId = newId("b");
  expectOk(
    await store.completeConfirm(
      request.hostId,
      hold.holdId,
      begun.fence,
      { bookingId, payload, ...(index !== undefined && { index }) },
      request.now,
    ),
  );
  return bookingId;
}

/** Every booking id of a walk over the list, page by page. */
async function walk(
  store: GatewayStore,
  hostId: string,
  query: { limit: number; status?: string; from?: number; to?: number },
) {
  const ids: string[] = [];
  let cursor: string | undefined;
  for (let pages = 0; pages < 1000; pages++) {
    const page = await store.listBookings(hostId, { ...query, ...(cursor !== undefined && { cursor }) });
    expect(page.bookings.length).toBeLessThanOrEqual(query.limit);
    ids.push(...page.bookings.map((b) => b.bookingId));
    cursor = page.nextCursor;
    if (cursor === undefined) return ids;
  }
  throw new Error("the walk did not end");
}

const bay = (n: number) => req("bay", [[`bay-${n}`, 1]]);

export function bookingIndexesContract(store: () => GatewayStore): void {
  describe("booking indexes", () => {
    it("pages newest first, each booking once; filters by status and by start", async () => {
      const hostId = newHost();
      const s = store();
      expect(await s.listBookings(hostId, { limit: 10 })).toEqual({ bookings: [] });
      const ids: string[] = [];
      for (let i = 0; i < 7; i++)
        ids.push(
          await bookIndexed(
            s,
            // Two in the same millisecond: the order still tells them apart.
            holdRequest(hostId, { interval: at(i * 60, i * 60 + 30), now: NOW + Math.min(i, 5) }),
            { status: i % 2 === 0 ? "confirmed" : "pending_host" },
          ),
        );
      const newestFirst = [...ids].reverse();
      expect(await walk(s, hostId, { limit: 3 })).toEqual(newestFirst);
      expect(await walk(s, hostId, { limit: 7 })).toEqual(newestFirst);
      const first = await s.listBookings(hostId, { limit: 2 });
      expect(first.bookings.map((b) => b.bookingId)).toEqual(newestFirst.slice(0, 2));
      expect(first.bookings[0]).toMatchObject({ hostId, state: "active", payload: "{}" });
      expect(first.nextCursor).toMatch(/^[0-9]+$/);
      expect(await walk(s, hostId, { limit: 2, status: "pending_host" })).toEqual(
        newestFirst.filter((id) => ids.indexOf(id) % 2 === 1),
      );
      expect(await walk(s, hostId, { limit: 2, status: "cancelled" })).toEqual([]);
      // Starts in [from, to): bookings 2, 3 and 4.
      expect(await walk(s, hostId, { limit: 2, from: at(120, 121).start, to: at(300, 301).start })).toEqual([
        ids[4],
        ids[3],
        ids[2],
      ]);
      // A booking made after a walk began is newer than its cursor: not on the rest of it.
      const page = await s.listBookings(hostId, { limit: 4 });
      await bookIndexed(s, holdRequest(hostId, { interval: at(900, 930) }), { status: "confirmed" });
      const rest = await s.listBookings(hostId, { limit: 10, cursor: page.nextCursor });
      expect(rest.bookings.map((b) => b.bookingId)).toEqual(newestFirst.slice(4));
      await expect(s.listBookings(hostId, { limit: 0 })).rejects.toThrow(RangeError);
      await expect(s.listBookings(hostId, { limit: 5, cursor: "x" })).rejects.toThrow(RangeError);
    });

    it("a payload write moves the booking between statuses, deadlines and keys in the same step", async () => {
      const hostId = newHost();
      const s = store();
      const a = await bookIndexed(s, holdRequest(hostId), {
        status: "pending_host",
        deadline: NOW + 10 * MINUTE,
        keys: ["upstream:ev-a"],
      });
      const b = await bookIndexed(s, holdRequest(hostId, { interval: at(60, 120) }), {
        status: "pending_host",
        deadline: NOW + 5 * MINUTE,
        keys: ["upstream:ev-b"],
      });
      expect(await s.bookingsDue(hostId, NOW, 10)).toEqual([]);
      expect(await s.bookingsDue(hostId, NOW + 10 * MINUTE, 10)).toEqual([b, a]);
      expect(await s.bookingsDue(hostId, NOW + 10 * MINUTE, 1)).toEqual([b]);
      // Stepping over the first (one a caller could not settle).
      expect(await s.bookingsDue(hostId, NOW + 10 * MINUTE, 1, 1)).toEqual([a]);
      expect(await s.bookingsDue(hostId, NOW + 10 * MINUTE, 5, 2)).toEqual([]);
      expect(await s.bookingIdByKey(hostId, "upstream:ev-a")).toBe(a);
      expect(await s.bookingIdByKey(hostId, "upstream:none")).toBeUndefined();

      // A compare-and-set that lost writes nothing, index included.
      expectTransitionRefused(
        await s.updateBookingPayload(hostId, a, '{"v":1}', "not-the-payload", { status: "confirmed" }),
        "stale",
      );
      expect(await walk(s, hostId, { limit: 5, status: "confirmed" })).toEqual([]);
      expectOk(
        await s.updateBookingPayload(hostId, a, '{"v":1}', "{}", {
          status: "confirmed",
          keys: ["upstream:ev-a2"],
        }),
      );
      expect(await walk(s, hostId, { limit: 5, status: "confirmed" })).toEqual([a]);
      expect(await walk(s, hostId, { limit: 5, status: "pending_host" })).toEqual([b]);
      expect(await s.bookingsDue(hostId, NOW + 60 * MINUTE, 10)).toEqual([b]);
      expect(await s.bookingIdByKey(hostId, "upstream:ev-a")).toBeUndefined();
      expect(await s.bookingIdByKey(hostId, "upstream:ev-a2")).toBe(a);
      // Without an entry the index stays as it was.
      expectOk(await s.updateBookingPayload(hostId, b, '{"v":2}'));
      expect(await walk(s, hostId, { limit: 5, status: "pending_host" })).toEqual([b]);
      expect(await s.bookingsDue(hostId, NOW + 60 * MINUTE, 10)).toEqual([b]);
      // Released in the store, the core's status follows with its next payload.
      expectOk(await s.releaseBooking(hostId, b, NOW));
      expectOk(await s.updateBookingPayload(hostId, b, '{"v":3}', '{"v":2}', { status: "expired" }));
      expect(await s.bookingsDue(hostId, NOW + 60 * MINUTE, 10)).toEqual([]);
      expect(await walk(s, hostId, { limit: 5, status: "expired" })).toEqual([b]);
      expect(await walk(s, hostId, { limit: 5 })).toEqual([b, a]);
    });

    it("finds the active bookings on resources and time; moves and releases keep the time index exact", async () => {
      const hostId = newHost();
      const s = store();
      const long = await bookIndexed(
        s,
        holdRequest(hostId, { interval: at(0, 600), requirements: [bay(1)] }),
      );
      const short = await bookIndexed(
        s,
        holdRequest(hostId, { interval: at(700, 730), requirements: [bay(1)] }),
      );
      const other = await bookIndexed(
        s,
        holdRequest(hostId, { interval: at(700, 730), requirements: [bay(2)] }),
      );
      const ids = async (resources: string[], from: number, to: number) =>
        (await s.bookingsOverlapping(hostId, resources, at(from, to))).map((b) => b.bookingId).sort();
      // The long booking started well before the range and still reaches into it.
      expect(await ids(["bay-1"], 590, 595)).toEqual([long]);
      expect(await ids(["bay-1"], 600, 700)).toEqual([]);
      expect(await ids(["bay-1"], 599, 701)).toEqual([long, short].sort());
      expect(await ids(["bay-1", "bay-2"], 720, 800)).toEqual([short, other].sort());
      expect(await ids(["bay-3"], 0, 10_000)).toEqual([]);
      expect(await s.bookingsOverlapping(newHost(), ["bay-1"], at(0, 60))).toEqual([]);

      const change = expectHeld(
        await s.placeHold(
          holdRequest(hostId, { interval: at(800, 830), requirements: [bay(2)], overlapBookingId: short }),
        ),
      );
      expectOk(await s.moveBookingToHold(hostId, short, change.holdId, NOW));
      expect(await ids(["bay-1"], 700, 730)).toEqual([]);
      expect(await ids(["bay-2"], 800, 830)).toEqual([short]);
      const [moved] = await s.bookingsOverlapping(hostId, ["bay-2"], at(800, 830));
      expect(moved).toMatchObject({
        interval: at(800, 830),
        allocations: [{ resourceId: "bay-2", units: 1 }],
      });
      expectOk(await s.releaseBooking(hostId, long, NOW));
      expect(await ids(["bay-1"], 0, 600)).toEqual([]);
    });

    it("a booking recorded without an entry is listed and placed, and described by its first entry", async () => {
      const hostId = newHost();
      const s = store();
      const id = await bookIndexed(s, holdRequest(hostId, { requirements: [BAY1] }));
      expect(await walk(s, hostId, { limit: 5 })).toEqual([id]);
      expect((await s.bookingsOverlapping(hostId, ["bay-1"], at(0, 60))).map((b) => b.bookingId)).toEqual([
        id,
      ]);
      expectOk(await s.updateBookingPayload(hostId, id, "{}", "{}", { status: "confirmed" }));
      expect(await walk(s, hostId, { limit: 5, status: "confirmed" })).toEqual([id]);
      // Nothing to backfill on a host whose bookings were all written with the indexes.
      expect(await s.backfillBookingIndex(hostId, () => ({ status: "x" }))).toBe(0);
    });
  });
}
