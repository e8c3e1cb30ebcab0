import { describe, expect, it } from "vitest";
import { saveBooking, loadBooking } from "../../../src/booking/bookings/store.js";
import { confirmHold } from "../../../src/edges/schcp/confirm.js";
import type { BookingRecord, GatewayStore, Transition } from "../../../src/holds/port.js";
import { ok } from "../../../src/protocol/result.js";
import { INSTANT, callerFor, makeWorld, newParty, placeTestHold, unwrap } from "./world.js";

/**
 * The compare-and-set the lead is adding to updateBookingPayload (refused "stale" when the
 * stored payload is not ifPayload), emulated over MemoryHoldStore, with one concurrent writer
 * slipping in before the first write.
 */
function casStore(store: GatewayStore, interleave: () => Promise<void>): GatewayStore {
  let once = true;
  const update = async (h: string, b: string, payload: string, ifPayload?: string) => {
    if (once) {
      once = false;
      await interleave();
    }
    const current = await store.getBooking(h, b);
    if (current !== undefined && ifPayload !== undefined && current.payload !== ifPayload) {
      return { ok: false, error: { reason: "stale" } } satisfies Transition<BookingRecord>;
    }
    return store.updateBookingPayload(h, b, payload);
  };
  return new Proxy(store, {
    get(target, prop, receiver) {
      if (prop === "updateBookingPayload") return update;
      const v: unknown = Reflect.get(target, prop, receiver);
      return typeof v === "function" ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
}

describe("saveBooking: read, change, compare-and-set", () => {
  it("a concurrent update is not lost: the change is applied again to the fresh state", async () => {
    const world = makeWorld();
    const host = world.host();
    const caller = await callerFor(world, newParty());
    const hold = await placeTestHold(world, host, caller);
    const r = unwrap(
      await confirmHold(world.deps, INSTANT, caller, hold.record.holdId, {
        idempotency_key: "c",
        offer_sha256: hold.offerSha256,
      }),
    );
    const id = r.body.booking.booking_id;
    const bump = () =>
      saveBooking(
        world.deps,
        host.runtime,
        id,
        (s) => ok({ ...s, sequence: s.sequence + 1 }),
        world.clock.now(),
      );
    const racing = casStore(world.store, async () => {
      unwrap(await bump());
    });
    const saved = unwrap(
      await saveBooking(
        { ...world.deps, store: racing },
        host.runtime,
        id,
        (s) => ok({ ...s, sequence: s.sequence + 10 }),
        world.clock.now(),
      ),
    );
    expect(saved.sequence).toBe(11);
    expect((await loadBooking(world.store, INSTANT, id))?.state.sequence).toBe(11);
  });

  it("a change answering the same state writes nothing", async () => {
    const world = makeWorld();
    const host = world.host();
    const caller = await callerFor(world, newParty());
    const hold = await placeTestHold(world, host, caller);
    const r = unwrap(
      await confirmHold(world.deps, INSTANT, caller, hold.record.holdId, {
        idempotency_key: "c",
        offer_sha256: hold.offerSha256,
      }),
    );
    const before = await loadBooking(world.store, INSTANT, r.body.booking.booking_id);
    unwrap(
      await saveBooking(
        world.deps,
        host.runtime,
        r.body.booking.booking_id,
        (s) => ok(s),
        world.clock.now() + 5,
      ),
    );
    expect((await loadBooking(world.store, INSTANT, r.body.booking.booking_id))?.payload).toBe(
      before?.payload,
    );
  });
});
