/** The shared hold store contract run against MemoryHoldStore, plus what only the memory twin has. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { overlaps } from "../../src/holds/allocation.js";
import { MemoryHoldStore } from "../../src/holds/memory/memory-store.js";
import type { Allocation, PlaceHoldRequest, Interval } from "../../src/holds/port.js";
import { holdStoreContract } from "./contract/hold-store-contract.js";
import { at, DAY, holdRequest, MINUTE, newHost, NOW, req, T0 } from "./contract/support.js";

holdStoreContract("MemoryHoldStore", () =>
  Promise.resolve({ store: new MemoryHoldStore(), cleanup: () => Promise.resolve() }),
);

describe("MemoryHoldStore", () => {
  it("reads only the injected clock for nonces", async () => {
    let now = T0;
    const store = new MemoryHoldStore({ clock: { now: () => now } });
    const expiresAtSec = T0 / 1000 + 301;
    expect(await store.rememberIfNew("k", "n", expiresAtSec)).toBe(true);
    now = expiresAtSec * 1000 - 1;
    expect(await store.rememberIfNew("k", "n", expiresAtSec)).toBe(false);
    now = expiresAtSec * 1000;
    expect(await store.rememberIfNew("k", "n", expiresAtSec + 301)).toBe(true);
  });

  it("rejects a programmer error (no TTL, empty interval) instead of placing it", async () => {
    const store = new MemoryHoldStore();
    const hostId = newHost();
    await expect(store.placeHold(holdRequest(hostId, { ttlMs: 0 }))).rejects.toThrow(RangeError);
    await expect(store.placeHold(holdRequest(hostId, { interval: at(10, 10) }))).rejects.toThrow(RangeError);
  });

  it("lists hosts that have had holds, not hosts with only busy time", async () => {
    const store = new MemoryHoldStore();
    const [busyOnly, withHolds] = [newHost(), newHost()];
    await store.replaceBusy(busyOnly, "bay-1", "cal", [at(0, 10)]);
    await store.placeHold(holdRequest(withHolds));
    expect(await store.listHosts()).toEqual([withHolds]);
  });

  it("forgets holds that ended longer ago than the retention, on sweep", async () => {
    const store = new MemoryHoldStore({ endedHoldRetentionMs: DAY });
    const hostId = newHost();
    const placed = await store.placeHold(holdRequest(hostId));
    if (!placed.ok) return expect.fail(placed.error.reason);
    await store.releaseHold(hostId, placed.value.holdId, NOW);
    await store.sweepExpired(hostId, NOW + DAY, 10);
    expect(await store.getHold(hostId, placed.value.holdId, NOW + DAY)).toBeDefined();
    await store.sweepExpired(hostId, NOW + DAY + 1, 10);
    expect(await store.getHold(hostId, placed.value.holdId, NOW + DAY + 1)).toBeUndefined();
  });

  it("never lets occupied time exceed a resource's capacity, whatever the operations (property)", async () => {
    const resources: ReadonlyArray<readonly [string, number]> = [
      ["r1", 1],
      ["r2", 2],
      ["r3", 3],
    ];
    const capacity = new Map(resources);
    const op = fc.oneof(
      fc.record({
        kind: fc.constant("hold" as const),
        from: fc.integer({ min: 0, max: 20 }),
        len: fc.integer({ min: 1, max: 8 }),
        units: fc.integer({ min: 1, max: 4 }),
        reqs: fc.integer({ min: 1, max: 2 }),
        combine: fc.boolean(),
        ttl: fc.integer({ min: 1, max: 10 }),
      }),
      fc.record({
        kind: fc.constantFrom("release" as const, "confirm" as const, "book" as const),
        pick: fc.nat(),
      }),
      fc.record({
        kind: fc.constant("busy" as const),
        pick: fc.nat(),
        from: fc.integer({ min: 0, max: 20 }),
      }),
      fc.record({ kind: fc.constant("tick" as const), by: fc.integer({ min: 1, max: 5 }) }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 40 }), async (ops) => {
        const store = new MemoryHoldStore();
        const hostId = newHost();
        let now = NOW;
        const holdIds: string[] = [];
        const fences = new Map<string, number>();
        const busy = new Map<string, Interval[]>();
        let n = 0;
        for (const o of ops) {
          const pick = <T>(list: readonly T[], i: number) => list[i % Math.max(1, list.length)];
          if (o.kind === "hold") {
            const requirement = req("r", resources, o.units, o.combine);
            const request: PlaceHoldRequest = holdRequest(hostId, {
              holdId: `h${++n}`,
              interval: at(o.from, o.from + o.len),
              requirements: Array.from({ length: o.reqs }, () => requirement),
              ttlMs: o.ttl * MINUTE,
              now,
            });
            const placed = await store.placeHold(request);
            if (placed.ok) {
              holdIds.push(placed.value.holdId);
              // Busy time known when the hold was placed is never overlapped by it.
              for (const a of placed.value.allocations) {
                const clash = (busy.get(a.resourceId) ?? []).some((b) => overlaps(b, request.interval));
                expect(clash, `hold on ${a.resourceId} over busy time`).toBe(false);
              }
            }
          } else if (o.kind === "tick") {
            now += o.by * MINUTE;
          } else if (o.kind === "busy") {
            const id = pick(resources, o.pick)?.[0] ?? "r1";
            const blocks = [...(busy.get(id) ?? []), at(o.from, o.from + 2)];
            busy.set(id, blocks);
            await store.replaceBusy(hostId, id, "cal", blocks);
          } else {
            const id = pick(holdIds, o.pick);
            if (id === undefined) continue;
            if (o.kind === "release") await store.releaseHold(hostId, id, now);
            if (o.kind === "confirm") {
              const begun = await store.beginConfirm(hostId, id, now, MINUTE);
              if (begun.ok) fences.set(id, begun.value.fence);
            }
            if (o.kind === "book") {
              await store.completeConfirm(
                hostId,
                id,
                fences.get(id) ?? -1,
                { bookingId: `b-${id}`, payload: "" },
                now,
              );
            }
          }
          await expectWithinCapacity(store, hostId, holdIds, now, capacity);
        }
      }),
      { numRuns: 150 },
    );
  });
});

/** Reads every hold and booking back and checks each resource's agent units moment by moment. */
async function expectWithinCapacity(
  store: MemoryHoldStore,
  hostId: string,
  holdIds: readonly string[],
  now: number,
  capacity: ReadonlyMap<string, number>,
): Promise<void> {
  const occupied: Array<{ interval: Interval; allocations: readonly Allocation[] }> = [];
  for (const id of holdIds) {
    const hold = await store.getHold(hostId, id, now);
    if (hold?.state === "held" || hold?.state === "confirming") occupied.push(hold);
    const booking =
      hold?.bookingId === undefined ? undefined : await store.getBooking(hostId, hold.bookingId);
    if (booking?.state === "active") occupied.push(booking);
  }
  for (const [resourceId, cap] of capacity) {
    for (let minute = 0; minute < 30; minute++) {
      const t = T0 + minute * MINUTE;
      const covers = (i: Interval) => i.start <= t && t < i.end;
      let used = 0;
      for (const o of occupied) {
        if (covers(o.interval))
          for (const a of o.allocations) if (a.resourceId === resourceId) used += a.units;
      }
      expect(used, `${resourceId} at minute ${minute}`).toBeLessThanOrEqual(cap);
    }
  }
}
