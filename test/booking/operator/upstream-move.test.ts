/**
 * applyUpstreamMove (src/booking/operator/upstream-move.ts) on the in-memory store: a booking
 * moved in the host's own system of record (SchCP §10: the endpoint is a façade over it) moves
 * here, busy time and receipt included; the same or an older upstream version changes nothing;
 * a move onto another gateway booking's time is still recorded, without a resource, and marked
 * for the operator.
 */
import { describe, expect, it } from "vitest";
import { applyUpstreamMove, type UpstreamMove } from "../../../src/booking/operator/upstream-move.js";
import { hostCancelBooking } from "../../../src/booking/operator/host-cancel.js";
import { proposeChange } from "../../../src/booking/operator/propose.js";
import { confirmHold } from "../../../src/edges/schcp/confirm.js";
import { bookingResponse } from "../../../src/edges/schcp/receipt.js";
import { loadBooking } from "../../../src/booking/bookings/store.js";
import { verifyReceipt } from "../../../src/protocol/schcp/receipt/index.js";
import type { WebhookEvent } from "../../../src/protocol/schcp/types.js";
import { validateSchcp } from "../../../src/protocol/schcp/validate.js";
import {
  HOUR,
  INSTANT,
  MINUTE,
  SLOT,
  callerFor,
  discoveryKeys,
  HoldRefused,
  makeWorld,
  newParty,
  placeTestHold,
  testCreateHold,
  unwrap,
  type World,
} from "../bookings/world.js";

const HOOK = "https://agent.example/hooks/schcp";
const LATER = SLOT + 3 * HOUR;

async function book(world: World, start = SLOT, resource = "bay-1") {
  const host = world.host(INSTANT);
  const caller = await callerFor(world, newParty());
  const hold = await placeTestHold(world, host, caller, { callbackUrl: HOOK, resource, start });
  const r = unwrap(
    await confirmHold(world.deps, INSTANT, caller, hold.record.holdId, {
      idempotency_key: `c-${hold.record.holdId}`,
      offer_sha256: hold.offerSha256,
    }),
  );
  return r.body.booking.booking_id;
}

async function stored(world: World, bookingId: string) {
  const loaded = await loadBooking(world.store, INSTANT, bookingId);
  if (loaded === undefined) throw new Error("no booking");
  return loaded;
}

/** The units of bay-1/bay-2 taken at [start, start + 1 h) by gateway holds and bookings. */
async function busyAt(world: World, start: number): Promise<string[]> {
  const occ = await world.store.listOccupancy(
    INSTANT,
    ["bay-1", "bay-2"],
    { start, end: start + HOUR },
    world.clock.now(),
  );
  return [...occ].filter(([, entries]) => entries.length > 0).map(([id]) => id);
}

const move = (over: Partial<UpstreamMove> = {}): UpstreamMove => ({
  start: LATER,
  end: LATER + 45 * MINUTE,
  resourceIds: ["bay-1"],
  version: 2,
  ...over,
});

describe("applyUpstreamMove (the upstream is the system of record, SchCP §10)", () => {
  it("moves the booking, its busy time and its receipt; the guest gets booking.change_approved", async () => {
    const world = makeWorld();
    const bookingId = await book(world);
    const before = await stored(world, bookingId);
    const oldReceipt = bookingResponse(before.state, world.host().runtime).receipt;
    expect(await busyAt(world, SLOT)).toEqual(["bay-1"]);

    const r = unwrap(await applyUpstreamMove(world.deps, INSTANT, bookingId, move()));
    expect(r).toMatchObject({ outcome: "moved", guestTold: true });
    expect(r.outcome === "moved" ? r.conflict : "unchanged").toBeUndefined();

    const after = await stored(world, bookingId);
    expect(after.record.interval).toEqual({ start: LATER, end: LATER + HOUR }); // 45 min + 15 min buffer
    expect(after.record.allocations.map((a) => a.resourceId)).toEqual(["bay-1"]);
    expect(after.state).toMatchObject({
      start: LATER,
      end: LATER + 45 * MINUTE,
      sequence: 1,
      upstreamVersion: 2,
    });
    expect(after.state.contract).toMatchObject({ start: LATER, end: LATER + 45 * MINUTE });
    expect(after.state.attention).toBeUndefined();
    // Busy time moved: the old time is free again, the new one is taken.
    expect(await busyAt(world, SLOT)).toEqual([]);
    expect(await busyAt(world, LATER)).toEqual(["bay-1"]);
    const caller = await callerFor(world, newParty());
    await placeTestHold(world, world.host(), caller, { resource: "bay-1", start: SLOT });
    await expect(
      placeTestHold(world, world.host(), caller, { resource: "bay-1", start: LATER }),
    ).rejects.toThrow(HoldRefused);

    // The guest's view: the new time, sequence 1, a fresh receipt that verifies.
    const host = world.host();
    const schcp = bookingResponse(after.state, host.runtime);
    expect(Date.parse(schcp.booking.start)).toBe(LATER);
    expect(schcp.booking.sequence).toBe(1);
    expect(schcp.receipt).not.toBe(oldReceipt);
    const claims = await verifyReceipt(schcp.receipt, discoveryKeys(host), { bookingId });
    expect(claims.ok && claims.value.claims.booking).toEqual(schcp.booking);

    const events = world.outbox.events.map((e) => e.event as unknown as WebhookEvent);
    expect(events.map((e) => e.type)).toEqual(["booking.change_approved"]);
    const [event] = events;
    expect(validateSchcp("WebhookEvent", event).ok).toBe(true);
    expect(world.outbox.events[0]?.callbackUrl).toBe(HOOK);
    expect(event?.receipt).toBe(schcp.receipt);
  });

  it("the same upstream version again, or an older one, changes nothing", async () => {
    const world = makeWorld();
    const bookingId = await book(world);
    unwrap(await applyUpstreamMove(world.deps, INSTANT, bookingId, move({ version: 5 })));
    const once = await stored(world, bookingId);
    const events = world.outbox.events.length;

    const replay = unwrap(await applyUpstreamMove(world.deps, INSTANT, bookingId, move({ version: 5 })));
    expect(replay).toMatchObject({ outcome: "unchanged", why: "not_newer" });
    const older = unwrap(
      await applyUpstreamMove(
        world.deps,
        INSTANT,
        bookingId,
        move({ start: SLOT, end: SLOT + 45 * MINUTE, version: 4 }),
      ),
    );
    expect(older).toMatchObject({ outcome: "unchanged", why: "not_newer" });
    const after = await stored(world, bookingId);
    expect(after.payload).toBe(once.payload);
    expect(after.record).toEqual(once.record);
    expect(world.outbox.events).toHaveLength(events);

    // A newer version that says what the gateway already has records the version, quietly.
    const same = unwrap(await applyUpstreamMove(world.deps, INSTANT, bookingId, move({ version: 6 })));
    expect(same).toMatchObject({ outcome: "unchanged", why: "same" });
    const quiet = await stored(world, bookingId);
    expect(quiet.state).toMatchObject({ sequence: 1, upstreamVersion: 6, updatedAt: once.state.updatedAt });
    expect(world.outbox.events).toHaveLength(events);
  });

  it("another unit the contract does not name moves quietly (§5.8: nothing the guest agreed to changed)", async () => {
    const world = makeWorld();
    const bookingId = await book(world);
    const before = await stored(world, bookingId);
    const r = unwrap(
      await applyUpstreamMove(
        world.deps,
        INSTANT,
        bookingId,
        move({ start: SLOT, end: SLOT + 45 * MINUTE, resourceIds: ["bay-2"] }),
      ),
    );
    expect(r).toMatchObject({ outcome: "moved", guestTold: false });
    const after = await stored(world, bookingId);
    expect(after.record.allocations.map((a) => a.resourceId)).toEqual(["bay-2"]);
    expect(after.state).toMatchObject({ sequence: 0, resourceIds: ["bay-2"], upstreamVersion: 2 });
    expect(after.state.attachments).toEqual(before.state.attachments);
    expect(await busyAt(world, SLOT)).toEqual(["bay-2"]);
    expect(world.outbox.events).toEqual([]);
  });

  it("onto another gateway booking's time: recorded at the upstream's time without a resource, marked for the operator", async () => {
    const world = makeWorld();
    const moved = await book(world, SLOT);
    const other = await book(world, LATER);
    const r = unwrap(await applyUpstreamMove(world.deps, INSTANT, moved, move()));
    if (r.outcome !== "moved") throw new Error("not moved");
    expect(r.conflict).toMatchObject({ reason: "upstream_move_conflict", conflictsWith: [other] });
    expect(r.booking.attention?.conflictsWith).toEqual([other]);

    const after = await stored(world, moved);
    expect(after.record.state).toBe("active");
    expect(after.record.interval.start).toBe(LATER);
    expect(after.record.allocations).toEqual([]);
    expect(after.state).toMatchObject({
      start: LATER,
      sequence: 1,
      resourceIds: ["bay-1"],
      status: "confirmed",
    });
    // The other booking is untouched; the old time is free.
    const untouched = await stored(world, other);
    expect(untouched.record.allocations.map((a) => a.resourceId)).toEqual(["bay-1"]);
    expect(await busyAt(world, SLOT)).toEqual([]);
    // The guest still hears of the new time.
    expect(world.outbox.types()).toContain("booking.change_approved");

    // Once the double booking is settled upstream (moved elsewhere), the mark is gone.
    const settled = unwrap(
      await applyUpstreamMove(
        world.deps,
        INSTANT,
        moved,
        move({ start: LATER + 2 * HOUR, end: LATER + 2 * HOUR + 45 * MINUTE, version: 3 }),
      ),
    );
    expect(settled).toMatchObject({ outcome: "moved" });
    const clean = await stored(world, moved);
    expect(clean.state.attention).toBeUndefined();
    expect(clean.record.allocations.map((a) => a.resourceId)).toEqual(["bay-1"]);
    expect(clean.state.sequence).toBe(2);
    // A cancelled booking ends holding nothing, conflict or not.
    unwrap(await hostCancelBooking(world.deps, INSTANT, moved, {}));
    expect(await busyAt(world, LATER + 2 * HOUR)).toEqual([]);
  });

  it("a time move withdraws an open change offer (its hold released): the sequence it named is gone", async () => {
    const world = makeWorld();
    const bookingId = await book(world);
    unwrap(
      await proposeChange(world.deps, testCreateHold(world), INSTANT, bookingId, {
        start: "2030-01-08T13:00:00-05:00",
      }),
    );
    const proposed = await stored(world, bookingId);
    const holdId = proposed.state.proposal?.holdId ?? "";
    expect((await world.store.getHold(INSTANT, holdId, world.clock.now()))?.state).toBe("held");
    const elsewhere = LATER + 2 * HOUR;
    unwrap(
      await applyUpstreamMove(
        world.deps,
        INSTANT,
        bookingId,
        move({ start: elsewhere, end: elsewhere + 45 * MINUTE }),
      ),
    );
    const after = await stored(world, bookingId);
    expect(after.state.proposal).toBeUndefined();
    expect((await world.store.getHold(INSTANT, holdId, world.clock.now()))?.state).toBe("released");
  });

  it("the upstream's notice of the gateway's own change, before the local swap, is left to the swap", async () => {
    const world = makeWorld();
    const bookingId = await book(world);
    unwrap(
      await proposeChange(world.deps, testCreateHold(world), INSTANT, bookingId, {
        start: "2030-01-08T13:00:00-05:00",
      }),
    );
    const proposed = await stored(world, bookingId);
    const p = proposed.state.proposal!;
    const r = unwrap(
      await applyUpstreamMove(
        world.deps,
        INSTANT,
        bookingId,
        move({ start: p.start, ...(p.end !== undefined && { end: p.end }) }),
      ),
    );
    expect(r).toMatchObject({ outcome: "unchanged", why: "own_change_pending" });
    expect((await world.store.getHold(INSTANT, p.holdId, world.clock.now()))?.state).toBe("held");
    expect((await stored(world, bookingId)).payload).toBe(proposed.payload);
  });

  it("a booking no longer active is left alone; an unknown one is not_found", async () => {
    const world = makeWorld();
    const bookingId = await book(world);
    unwrap(await hostCancelBooking(world.deps, INSTANT, bookingId, {}));
    const r = unwrap(await applyUpstreamMove(world.deps, INSTANT, bookingId, move()));
    expect(r).toMatchObject({ outcome: "unchanged", why: "not_active" });
    expect((await stored(world, bookingId)).state.start).toBe(SLOT);
    const missing = await applyUpstreamMove(world.deps, INSTANT, "b_nope", move());
    expect(missing.ok || missing.error.code).toBe("not_found");
  });
});
