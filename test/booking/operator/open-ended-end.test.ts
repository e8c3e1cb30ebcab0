/**
 * Ending an open-ended booking (SchCP §4.2, §6): the host completes it with an end after the
 * start; without one it is refused. The end becomes part of the booking, sequence goes up and
 * the guest hears booking.ended with a receipt carrying the end.
 */
import { describe, expect, it } from "vitest";
import { confirmHold } from "../../../src/edges/schcp/confirm.js";
import { placeHold } from "../../../src/edges/schcp/place-hold.js";
import { bookingResponse } from "../../../src/edges/schcp/receipt.js";
import { loadBooking } from "../../../src/booking/bookings/store.js";
import { markAttendance } from "../../../src/booking/operator/attendance.js";
import { offerSha256 } from "../../../src/protocol/schcp/offer/index.js";
import { verifyReceipt } from "../../../src/protocol/schcp/receipt/index.js";
import type { Booking, WebhookEvent } from "../../../src/protocol/schcp/types.js";
import { validateSchcp } from "../../../src/protocol/schcp/validate.js";
import { FakeConnector as BookingsFake } from "../bookings/fake-connector.js";
import { at, caller, deps, refusalOf, runtime, valueOf } from "../holds/support.js";

const HOST = "maple-street-auto";
const HOOK = "https://agent.example/hooks/schcp";
const THU = (hhmm: string) => `2026-10-15T${hhmm}:00-04:00`;

async function openEndedBooking() {
  // The holds fake offers the slots; the bookings fake takes the upstream create and status.
  const slotsHost = runtime();
  const upstream = new BookingsFake(slotsHost.catalog);
  const host = {
    ...slotsHost,
    connector: Object.assign(slotsHost.connector, { bookings: upstream.bookings }),
  };
  const d = deps([host]);
  const c = await caller();
  const hold = valueOf(
    await placeHold(d, HOST, c, {
      service_id: "diagnosis",
      start: THU("09:00"),
      idempotency_key: "h-1",
      callback_url: HOOK,
    }),
  );
  expect(hold.open_end).toBe(true);
  const booked = valueOf(
    await confirmHold(d, HOST, c, hold.hold_id, {
      idempotency_key: "c-1",
      offer_sha256: offerSha256(hold.offer),
    }),
  );
  const keys = host.keys.map((k) => ({ ...k.publicJwk, kid: k.kid }));
  return { host, d, keys, bookingId: booked.body.booking.booking_id };
}

describe("§4.2/§6 ending an open-ended booking", () => {
  it("§6 refuses to mark an open-ended booking completed without an end, with one not after its start, or with one in the future", async () => {
    const { d, bookingId } = await openEndedBooking();
    d.clock.set(at(THU("10:00")));
    refusalOf(
      await markAttendance(d, HOST, bookingId, { status: "completed" }),
      "INVALID_REQUEST",
      "invalid_request",
    );
    refusalOf(
      await markAttendance(d, HOST, bookingId, { status: "completed", end: THU("09:00") }),
      "INVALID_REQUEST",
      "invalid_request",
    );
    // §4.2: "an end time that is after the start and not in the future".
    refusalOf(
      await markAttendance(d, HOST, bookingId, { status: "completed", end: THU("10:30") }),
      "INVALID_REQUEST",
      "invalid_request",
    );
    const loaded = await loadBooking(d.store, HOST, bookingId);
    expect(loaded?.state).toMatchObject({ status: "confirmed", sequence: 0 });
  });

  it("§4.2 the host's end makes it completed with that end, sequence + 1, and sends booking.ended with a receipt carrying the end", async () => {
    const { host, d, keys, bookingId } = await openEndedBooking();
    d.clock.set(at(THU("10:00")));
    valueOf(await markAttendance(d, HOST, bookingId, { status: "completed", end: THU("09:45") }));

    const loaded = await loadBooking(d.store, HOST, bookingId);
    if (loaded === undefined) throw new Error("the booking is not stored");
    const wire = bookingResponse(loaded.state, host);
    expect(wire.booking).toMatchObject({ status: "completed", sequence: 1, end: THU("09:45") });

    const ended = d.events
      .map((e) => e.event as unknown as WebhookEvent)
      .filter((e) => e.type === "booking.ended");
    expect(ended).toHaveLength(1);
    const [event] = ended;
    if (event === undefined) throw new Error("no booking.ended");
    expect(validateSchcp("WebhookEvent", event).ok).toBe(true);
    const receipt = await verifyReceipt(event.receipt, keys, { bookingId });
    expect(receipt.ok, JSON.stringify(receipt)).toBe(true);
    if (!receipt.ok) return;
    const booking: Booking = receipt.value.claims.booking;
    expect(booking).toMatchObject({ status: "completed", sequence: 1, end: THU("09:45") });
  });
});
