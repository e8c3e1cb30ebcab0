import { describe, expect, it, vi } from "vitest";
import { cancelBooking } from "../../../src/edges/schcp/cancel.js";
import { getBooking } from "../../../src/edges/schcp/get.js";
import { confirmHold } from "../../../src/edges/schcp/confirm.js";
import { verifyReceipt } from "../../../src/protocol/schcp/receipt/index.js";
import { validateSchcp } from "../../../src/protocol/schcp/validate.js";
import {
  APPROVAL,
  HOUR,
  INSTANT,
  SLOT,
  callerFor,
  discoveryKeys,
  makeWorld,
  newParty,
  placeTestHold,
  refusalOf,
  unwrap,
} from "./world.js";

async function booked(hostId = INSTANT) {
  const world = makeWorld();
  const host = world.host(hostId);
  const party = newParty();
  const caller = await callerFor(world, party, { hostId });
  const hold = await placeTestHold(world, host, caller);
  const r = unwrap(
    await confirmHold(world.deps, hostId, caller, hold.record.holdId, {
      idempotency_key: "c",
      offer_sha256: hold.offerSha256,
    }),
  );
  return { world, host, party, caller, hold, bookingId: r.body.booking.booking_id };
}

describe("GET /bookings/{id} (SchCP §5.5)", () => {
  it("returns the booking to its principal under any scope, validating as BookingResponse", async () => {
    const { world, party, bookingId } = await booked();
    const reader = await callerFor(world, party, { scope: ["cancel"] });
    const r = unwrap(await getBooking(world.deps, INSTANT, reader, bookingId));
    expect(r.booking.booking_id).toBe(bookingId);
    expect(validateSchcp("BookingResponse", r).ok).toBe(true);
  });

  it("constraints bind reads: another booking's management mandate, another service, another principal", async () => {
    const { world, party, bookingId } = await booked();
    const mgmt = await callerFor(world, party, { scope: ["cancel"], constraints: { bookings: ["b_other"] } });
    refusalOf(await getBooking(world.deps, INSTANT, mgmt, bookingId), "MANDATE_SCOPE", "booking_not_allowed");
    const svc = await callerFor(world, party, { constraints: { services: ["brake-inspection"] } });
    refusalOf(await getBooking(world.deps, INSTANT, svc, bookingId), "MANDATE_SCOPE", "service_not_allowed");
    refusalOf(
      await getBooking(world.deps, INSTANT, await callerFor(world, newParty()), bookingId),
      "NOT_FOUND",
    );
    refusalOf(await getBooking(world.deps, INSTANT, { agentKey: "k" }, bookingId), "MANDATE_INVALID");
    refusalOf(await getBooking(world.deps, INSTANT, mgmt, "b_missing"), "NOT_FOUND");
  });
});

describe("POST /bookings/{id}/cancel (SchCP §5.6)", () => {
  it("before the start: cancelled, sequence + 1, a fresh receipt that verifies, upstream cancelled, time freed", async () => {
    const { world, host, party, caller, hold, bookingId } = await booked();
    const mgmt = await callerFor(world, party, {
      scope: ["cancel", "reschedule"],
      constraints: { bookings: [bookingId] },
    });
    const r = unwrap(
      await cancelBooking(world.deps, INSTANT, mgmt, bookingId, { idempotency_key: "x", reason: "sick" }),
    );
    expect(r.booking).toMatchObject({ status: "cancelled", sequence: 1 });
    expect(r.booking.event).toMatchObject({ status: "cancelled", sequence: 1 });
    expect(r.booking.refusal).toBeUndefined();
    expect(validateSchcp("BookingResponse", r).ok).toBe(true);
    const receipt = await verifyReceipt(r.receipt, discoveryKeys(host), {
      bookingId,
      offerSha256: hold.offerSha256,
      mandateJti: caller.mandate?.root.claims.jti,
    });
    expect(receipt.ok).toBe(true);
    if (receipt.ok) expect(receipt.value.claims.booking.sequence).toBe(1);
    expect([...host.connector.appointments.values()][0]?.status).toBe("cancelled");
    expect((await world.store.getBooking(INSTANT, bookingId))?.state).toBe("released");
    // The same time can be held again at once: the bay it had is free.
    await placeTestHold(world, host, caller, { resource: "bay-1" });
    // Cancelling a cancelled booking returns it unchanged.
    const again = unwrap(await cancelBooking(world.deps, INSTANT, mgmt, bookingId, { idempotency_key: "y" }));
    expect(again.booking.sequence).toBe(1);
    expect(again.receipt).toBe(r.receipt);
  });

  it("§5.6 the guest's reason goes to the host with the cancellation", async () => {
    const { world, host, caller, bookingId } = await booked();
    const cancel = vi.spyOn(host.connector.bookings, "cancel");
    unwrap(
      await cancelBooking(world.deps, INSTANT, caller, bookingId, {
        idempotency_key: "x",
        reason: "the car will not start",
      }),
    );
    expect(cancel).toHaveBeenCalledTimes(1);
    expect(cancel.mock.calls[0]?.[1]).toBe("the car will not start");
  });

  it("a pending_host booking can be cancelled too", async () => {
    const { world, caller, bookingId } = await booked(APPROVAL);
    const r = unwrap(await cancelBooking(world.deps, APPROVAL, caller, bookingId, { idempotency_key: "x" }));
    expect(r.booking).toMatchObject({ status: "cancelled", sequence: 1 });
  });

  it("after the start: 409 INVALID_STATE already_started, nothing changed", async () => {
    const { world, host, caller, bookingId } = await booked();
    world.clock.t = SLOT + HOUR / 4;
    refusalOf(
      await cancelBooking(world.deps, INSTANT, caller, bookingId, { idempotency_key: "x" }),
      "INVALID_STATE",
      "already_started",
    );
    expect(host.connector.calls.cancel).toBe(0);
  });

  it("needs cancel in scope; an upstream outage is 503 and leaves the booking as it was", async () => {
    const { world, host, party, caller, bookingId } = await booked();
    const noCancel = await callerFor(world, party, { scope: ["hold", "book"] });
    refusalOf(
      await cancelBooking(world.deps, INSTANT, noCancel, bookingId, { idempotency_key: "x" }),
      "MANDATE_SCOPE",
      "not_in_scope",
    );
    host.connector.fail("cancel", "unavailable");
    refusalOf(
      await cancelBooking(world.deps, INSTANT, caller, bookingId, { idempotency_key: "x" }),
      "UPSTREAM_UNAVAILABLE",
    );
    expect(unwrap(await getBooking(world.deps, INSTANT, caller, bookingId)).booking.status).toBe("confirmed");
  });
});
