/**
 * End to end, with the clock moved forward: holds that lapse (§5.2, §6), mandates that expire
 * (§3.3), cancelling after the start (§5.6), attendance (§6), host approval deadlines (§5.3),
 * and the webhooks the host side sends (§5.8), delivered over HTTP to a loopback agent
 * server, signed with the host key.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyBookingReceipt, verifyHoldOffer } from "../../src/agent/index.js";
import { offerSha256 } from "../../src/protocol/schcp/offer/index.js";
import { verifyReceipt } from "../../src/protocol/schcp/receipt/index.js";
import {
  discover,
  freeSlots,
  holdAndBook,
  must,
  newAgent,
  openMandate,
  operator,
  refusalOf,
} from "./support/agents.js";
import { startGateway } from "./support/gateway.js";
import type { E2eGateway } from "./support/gateway.js";
import { CALLBACK_ORIGIN, startWebhookSink, verifyDelivery } from "./support/webhooks.js";
import type { WebhookSink } from "./support/webhooks.js";

let gw: E2eGateway;
let sink: WebhookSink;
beforeAll(async () => {
  sink = await startWebhookSink();
  gw = await startGateway({
    runtime: { webhookFetch: sink.transport, workers: { sweepMs: 100, reconcileMs: 500, approvalsMs: 100 } },
  });
});
afterAll(async () => {
  await gw?.close();
  await sink?.close();
});

const nowSec = () => Math.floor(gw.clock.now() / 1000);

describe("holds lapse (§5.2, §6)", () => {
  it("expires a hold at its TTL: confirm is refused, GET shows expired, hold.expired goes to callback_url", async () => {
    const agent = newAgent(gw);
    const maple = await discover(agent, gw, "maple-street-auto");
    const [slot] = await freeSlots(agent, gw, maple, "oil-change", { fromDays: 3 });
    const m = await openMandate(agent, maple.hostId);
    const callback = `${CALLBACK_ORIGIN}/hooks/${agent.key.thumbprint}`;
    const hold = must(
      await agent.client.hold(
        maple,
        { service_id: "oil-change", start: slot!.start, ttl: "PT1M", callback_url: callback },
        { mandate: m.compact },
      ),
      "hold",
    );
    gw.clock.advance(61_000);
    const r = refusalOf(
      await agent.client.confirm(
        maple,
        hold.body.hold_id,
        { offer_sha256: offerSha256(hold.body.offer) },
        { mandate: m.compact },
      ),
    );
    expect([404, 409]).toContain(r.status);
    const read = must(await agent.client.getHold(maple, hold.body.hold_id, { mandate: m.compact }), "get");
    expect(read.body.status).toBe("expired");
    expect(read.body.offer).toBe(hold.body.offer);

    const { event, delivery } = await sink.waitFor(
      (e) => e.type === "hold.expired" && e.hold?.hold_id === hold.body.hold_id,
    );
    expect(delivery.url).toBe(callback);
    expect(event.host_id).toBe("maple-street-auto");
    expect(await verifyDelivery(delivery, maple.keys, nowSec())).toEqual({ ok: true, why: "" });
    expect((await verifyHoldOffer(event.hold, maple)).ok).toBe(true);
  });

  it("refuses a confirm under a mandate that expired after the hold (401 mandate_expired)", async () => {
    const agent = newAgent(gw);
    const maple = await discover(agent, gw, "maple-street-auto");
    const [slot] = await freeSlots(agent, gw, maple, "brake-inspection", { fromDays: 3 });
    const m = await openMandate(agent, maple.hostId, { ttlSec: 60 });
    const hold = must(
      await agent.client.hold(
        maple,
        { service_id: "brake-inspection", start: slot!.start },
        { mandate: m.compact },
      ),
      "hold",
    );
    gw.clock.advance(61_000);
    const r = refusalOf(
      await agent.client.confirm(
        maple,
        hold.body.hold_id,
        { offer_sha256: offerSha256(hold.body.offer) },
        { mandate: m.compact },
      ),
    );
    expect(r).toMatchObject({ status: 401, code: "MANDATE_INVALID", reason: "mandate_expired" });
  });
});

describe("host approval (§5.3, §5.8)", () => {
  it("tells the guest by webhook when the host approves, with a receipt that verifies", async () => {
    const agent = newAgent(gw);
    const dental = await discover(agent, gw, "harbourview-dental");
    const [slot] = await freeSlots(agent, gw, dental, "cleaning", { fromDays: 3 });
    const m = await openMandate(agent, dental.hostId);
    const callback = `${CALLBACK_ORIGIN}/hooks/approve`;
    const hold = must(
      await agent.client.hold(
        dental,
        { service_id: "cleaning", start: slot!.start, callback_url: callback },
        { mandate: m.compact },
      ),
      "hold",
    );
    const hash = offerSha256(hold.body.offer);
    const conf = must(
      await agent.client.confirm(dental, hold.body.hold_id, { offer_sha256: hash }, { mandate: m.compact }),
      "confirm",
    );
    expect(conf.status).toBe(202);
    const id = conf.body.booking.booking_id;
    expect((await operator(gw, dental.hostId, `/bookings/${id}/approve`, {})).status).toBe(200);
    const { event, delivery } = await sink.waitFor(
      (e) => e.type === "booking.confirmed" && e.booking?.booking_id === id,
    );
    expect(await verifyDelivery(delivery, dental.keys, nowSec())).toEqual({ ok: true, why: "" });
    const receipt = await verifyReceipt(event.receipt, dental.keys, {
      expectedIss: dental.hostId,
      bookingId: id,
      offerSha256: hash,
    });
    expect(receipt.ok && receipt.value.claims.booking.status).toBe("confirmed");
  });

  it("lapses a booking the host does not answer by approval_by (EXPIRED host_did_not_answer, booking.expired)", async () => {
    const agent = newAgent(gw);
    const dental = await discover(agent, gw, "harbourview-dental");
    const [slot] = await freeSlots(agent, gw, dental, "cleaning", { fromDays: 4 });
    const m = await openMandate(agent, dental.hostId, { ttlSec: 12 * 3600 });
    const callback = `${CALLBACK_ORIGIN}/hooks/lapse`;
    const hold = must(
      await agent.client.hold(
        dental,
        { service_id: "cleaning", start: slot!.start, callback_url: callback },
        { mandate: m.compact },
      ),
      "hold",
    );
    const conf = must(
      await agent.client.confirm(
        dental,
        hold.body.hold_id,
        { offer_sha256: offerSha256(hold.body.offer) },
        { mandate: m.compact },
      ),
      "confirm",
    );
    const id = conf.body.booking.booking_id;
    const approvalBy = conf.body.booking.approval_by;
    expect(approvalBy).toBeDefined();
    // §5.7: the host's approval_timeout (default two hours), never past the start.
    expect(Date.parse(approvalBy!)).toBeLessThanOrEqual(Date.parse(conf.body.booking.start));
    gw.clock.advance(Date.parse(approvalBy!) + 60_000 - gw.clock.now());
    const { event, delivery } = await sink.waitFor(
      (e) => e.type === "booking.expired" && e.booking?.booking_id === id,
    );
    expect(await verifyDelivery(delivery, dental.keys, nowSec())).toEqual({ ok: true, why: "" });
    expect(event.booking?.refusal).toMatchObject({ code: "EXPIRED", reason: "host_did_not_answer" });
    const read = must(await agent.client.getBooking(dental, id, { mandate: m.compact }), "read");
    expect(read.body.booking.status).toBe("expired");
  });
});

describe("host-side changes reach the guest by signed webhook (§5.7, §5.8)", () => {
  async function bookedWithCallback(hostId: string, serviceId: string, fromDays: number, path: string) {
    const agent = newAgent(gw);
    const host = await discover(agent, gw, hostId);
    const slots = await freeSlots(agent, gw, host, serviceId, { fromDays, limit: 50 });
    const m = await openMandate(agent, hostId, { ttlSec: 12 * 3600 });
    const callback_url = `${CALLBACK_ORIGIN}/hooks/${path}`;
    const hold = must(
      await agent.client.hold(
        host,
        { service_id: serviceId, start: slots[0]!.start, callback_url },
        { mandate: m.compact },
      ),
      "hold",
    );
    const hash = offerSha256(hold.body.offer);
    const conf = must(
      await agent.client.confirm(host, hold.body.hold_id, { offer_sha256: hash }, { mandate: m.compact }),
      "confirm",
    );
    return { agent, host, slots, m, hash, id: conf.body.booking.booking_id, conf };
  }

  it("sends booking.cancelled_by_host and booking.change_proposed, each with a receipt that verifies", async () => {
    const a = await bookedWithCallback("maple-street-auto", "oil-change", 5, "host-cancel");
    expect(
      (await operator(gw, a.host.hostId, `/bookings/${a.id}/cancel`, { message: "bay flooded" })).status,
    ).toBe(200);
    const cancelled = await sink.waitFor(
      (e) => e.type === "booking.cancelled_by_host" && e.booking?.booking_id === a.id,
    );
    expect(await verifyDelivery(cancelled.delivery, a.host.keys, nowSec())).toEqual({ ok: true, why: "" });
    expect(cancelled.event.booking?.refusal).toMatchObject({ code: "CANCELLED", reason: "host_cancelled" });
    const r1 = await verifyReceipt(cancelled.event.receipt, a.host.keys, {
      expectedIss: a.host.hostId,
      bookingId: a.id,
    });
    expect(r1.ok).toBe(true);

    const b = await bookedWithCallback("fades-on-queen", "haircut", 5, "propose");
    const newStart = b.slots.find(
      (s) => Date.parse(s.start) >= Date.parse(b.slots[0]!.start) + 2 * 3_600_000,
    )!.start;
    expect((await operator(gw, b.host.hostId, `/bookings/${b.id}/propose`, { start: newStart })).status).toBe(
      200,
    );
    const proposed = await sink.waitFor(
      (e) => e.type === "booking.change_proposed" && e.booking?.booking_id === b.id,
    );
    expect(await verifyDelivery(proposed.delivery, b.host.keys, nowSec())).toEqual({ ok: true, why: "" });
    expect(proposed.event.booking?.proposal).toMatchObject({ by: "host" });
  });

  it("holds a guest's move at a host_approval host until the host says yes (§5.7 step 3), then moves it", async () => {
    const a = await bookedWithCallback("harbourview-dental", "cleaning", 5, "move");
    expect((await operator(gw, a.host.hostId, `/bookings/${a.id}/approve`, {})).status).toBe(200);
    const before = must(await a.agent.client.getBooking(a.host, a.id, { mandate: a.m.compact }), "read");
    const seq = before.body.booking.sequence;
    const newStart = a.slots.find(
      (s) => Date.parse(s.start) >= Date.parse(a.slots[0]!.start) + 3 * 3_600_000,
    )!.start;
    const change = must(
      await a.agent.client.changeOffer(
        a.host,
        a.id,
        { sequence: seq, start: newStart },
        { mandate: a.m.compact },
      ),
      "change-offer",
    );
    const changeHash = offerSha256(change.body.proposal.offer);
    const accepted = must(
      await a.agent.client.reschedule(
        a.host,
        a.id,
        { sequence: seq, offer_sha256: changeHash },
        { mandate: a.m.compact },
      ),
      "reschedule",
    );
    // The booking keeps its time, contract and sequence; the move waits for the host.
    const waiting = must(
      await verifyBookingReceipt(accepted.body, a.host, {
        bookingId: a.id,
        offerSha256: a.hash,
        changeOfferSha256: changeHash,
      }),
      "receipt while waiting",
    );
    expect(waiting.booking.sequence).toBe(seq);
    expect(waiting.booking.start).toBe(before.body.booking.start);
    expect(waiting.booking.proposal).toMatchObject({ awaiting_host: true, by: "guest" });
    expect(waiting.booking.proposal?.consent).toMatchObject({ mandate: a.m.jti });

    expect((await operator(gw, a.host.hostId, `/bookings/${a.id}/approve`, {})).status).toBe(200);
    const approved = await sink.waitFor(
      (e) => e.type === "booking.change_approved" && e.booking?.booking_id === a.id,
    );
    expect(await verifyDelivery(approved.delivery, a.host.keys, nowSec())).toEqual({ ok: true, why: "" });
    const moved = must(await a.agent.client.getBooking(a.host, a.id, { mandate: a.m.compact }), "read moved");
    const v = must(
      await verifyBookingReceipt(moved.body, a.host, { bookingId: a.id, offerSha256: changeHash }),
      "receipt moved",
    );
    expect(Date.parse(v.booking.start)).toBe(Date.parse(newStart));
    expect(v.booking.sequence).toBe(seq + 1);
  });
});

describe("after the start (§5.6, §6)", () => {
  it("refuses a cancel once the start has passed (409 INVALID_STATE already_started), then takes attendance", async () => {
    const agent = newAgent(gw);
    const fades = await discover(agent, gw, "fades-on-queen");
    const [slot] = await freeSlots(agent, gw, fades, "haircut", { fromDays: 2 });
    // Both barbers at one start: two bookings that start and end together.
    const a = await holdAndBook(agent, fades, "haircut", slot!.start);
    const b = await holdAndBook(agent, fades, "haircut", slot!.start);
    const idA = a.booking.booking.booking_id;
    const idB = b.booking.booking.booking_id;
    // Management mandates live until the end plus an hour (§3.3), so they still work after it.
    const manageA = await agent.keyApp.managementMandate(a.booking, { agent: agent.key });
    const manageB = await agent.keyApp.managementMandate(b.booking, { agent: agent.key });

    const early = await operator(gw, fades.hostId, `/bookings/${idA}/attendance`, { status: "completed" });
    expect(early.status).toBe(409);

    gw.clock.advance(Date.parse(a.booking.booking.end!) + 60_000 - gw.clock.now());
    const r = refusalOf(await agent.client.cancel(fades, idA, {}, { mandate: manageA.compact }));
    expect(r).toMatchObject({ status: 409, code: "INVALID_STATE", reason: "already_started" });

    expect(
      (await operator(gw, fades.hostId, `/bookings/${idA}/attendance`, { status: "completed" })).status,
    ).toBe(200);
    expect(
      (await operator(gw, fades.hostId, `/bookings/${idB}/attendance`, { status: "no_show" })).status,
    ).toBe(200);
    const readA = must(await agent.client.getBooking(fades, idA, { mandate: manageA.compact }), "read a");
    const readB = must(await agent.client.getBooking(fades, idB, { mandate: manageB.compact }), "read b");
    expect(
      must(await verifyBookingReceipt(readA.body, fades, { bookingId: idA }), "receipt a").booking.status,
    ).toBe("completed");
    expect(
      must(await verifyBookingReceipt(readB.body, fades, { bookingId: idB }), "receipt b").booking.status,
    ).toBe("no_show");
  });
});
