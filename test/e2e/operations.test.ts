/**
 * End to end, over real HTTP on loopback: every SchCP operation against the real
 * gateway (embedded default hosts, in-memory store), driven by the agent SDK. Each answer is
 * checked as an agent must (closed schemas, signed offers and receipts against the discovery
 * keys, §5.2–§5.3), then for what the operation promises.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyBookingReceipt, verifyChangeOffer, verifyHoldOffer } from "../../src/agent/index.js";
import type { DiscoveredHost } from "../../src/agent/index.js";
import { offerSha256 } from "../../src/protocol/schcp/offer/index.js";
import type { Hold } from "../../src/protocol/schcp/types.js";
import { validateSchcp } from "../../src/protocol/schcp/validate.js";
import { parseInstant } from "../../src/protocol/time/index.js";
import {
  discover,
  fillUntilRefused,
  freeSlots,
  holdAndBook,
  must,
  newAgent,
  openMandate,
  operator,
  refusalOf,
  releaseAll,
} from "./support/agents.js";
import { startGateway } from "./support/gateway.js";
import type { E2eGateway } from "./support/gateway.js";

let gw: E2eGateway;
beforeAll(async () => {
  gw = await startGateway();
});
afterAll(async () => {
  await gw?.close();
});

const ms = (t: string) => {
  const r = parseInstant(t, "");
  if (!r.ok) throw new Error(`not an instant: ${t}`);
  return r.value.epochMs;
};

describe("discovery (SchCP §2, §3.1)", () => {
  it("lists the three embedded hosts, each authorized by §2.2 rule 2 with its signing key", async () => {
    const agent = newAgent(gw);
    const op = must(await agent.client.discoverOperator(gw.origin), "operator document");
    expect(op.document.operator.domain).toBe("127.0.0.1");
    expect(op.document.hosts.map((h) => h.id).sort()).toEqual([
      "fades-on-queen",
      "harbourview-dental",
      "maple-street-auto",
    ]);
    for (const listing of op.document.hosts) {
      expect(listing.host_domain).toBeNull();
      const host = must(await agent.client.discoverHost(listing.discovery), listing.id);
      expect(host.authorization.rule).toBe(2);
      expect(host.endpoint).toBe(`${gw.origin}/schcp/v0/${listing.id}`);
      expect(host.keys.length).toBeGreaterThan(0);
      expect(host.keys[0]?.kid).toMatch(new RegExp(`^${listing.id}-[0-9]{4}-[0-9]{2}$`));
    }
  });

  it("publishes the policies and services an agent checks before asking (§2.1)", async () => {
    const agent = newAgent(gw);
    const maple = await discover(agent, gw, "maple-street-auto");
    expect(maple.document.policies).toMatchObject({ confirmation: "instant", retention: "P365D" });
    expect(maple.document.policies.holds).toMatchObject({
      max_ttl: "PT10M",
      max_active_per_agent: 3,
      requires_mandate: true,
    });
    const oil = maple.document.services.find((s) => s.id === "oil-change");
    expect(oil).toMatchObject({
      duration: "PT45M",
      buffer_after: "PT15M",
      price: { amount: "79.00", currency: "CAD" },
    });
    const dental = await discover(agent, gw, "harbourview-dental");
    expect(dental.document.policies.confirmation).toBe("host_approval");
    const fades = await discover(agent, gw, "fades-on-queen");
    expect(fades.document.services.find((s) => s.id === "consultation")?.price).toBeUndefined();
  });
});

describe("POST /availability (§5.1)", () => {
  it("offers priced slots with the all-in total (13 % HST on 79.00 CAD is 89.27)", async () => {
    const agent = newAgent(gw);
    const maple = await discover(agent, gw, "maple-street-auto");
    const slots = await freeSlots(agent, gw, maple, "oil-change", { limit: 10 });
    expect(slots.length).toBe(10);
    for (const s of slots) {
      expect(s).toMatchObject({
        price: { amount: "79.00", currency: "CAD" },
        total: { amount: "89.27", currency: "CAD" },
      });
      expect(ms(s.end!) - ms(s.start)).toBe(45 * 60_000);
    }
  });

  it("offers an unpriced service with nothing about money (§5.1, §5.2)", async () => {
    const agent = newAgent(gw);
    const fades = await discover(agent, gw, "fades-on-queen");
    const slots = await freeSlots(agent, gw, fades, "consultation", { limit: 5 });
    expect(slots.length).toBe(5);
    for (const s of slots) expect(s.price === undefined && s.total === undefined).toBe(true);
  });
});

describe("holds (§5.2, §5.4)", () => {
  it("places a hold with a signed offer whose terms match it, the same bytes on every read", async () => {
    const agent = newAgent(gw);
    const maple = await discover(agent, gw, "maple-street-auto");
    const [slot] = await freeSlots(agent, gw, maple, "oil-change");
    const m = await openMandate(agent, maple.hostId);
    const before = gw.clock.now();
    const reply = must(
      await agent.client.hold(
        maple,
        { service_id: "oil-change", start: slot!.start, ttl: "PT5M" },
        { mandate: m.compact },
      ),
      "hold",
    );
    expect(reply.status).toBe(201);
    const held = must(await verifyHoldOffer(reply.body, maple), "verify offer");
    const c = held.offer.claims;
    expect(c).toMatchObject({
      v: "0.4",
      kind: "booking",
      iss: "maple-street-auto",
      hold_id: reply.body.hold_id,
      retention: "P365D",
    });
    expect(c.host).toMatchObject({ name: "Maple Street Auto", tz: "America/Toronto" });
    expect(c.lines).toEqual([
      expect.objectContaining({ kind: "service", amount: { amount: "79.00", currency: "CAD" } }),
      expect.objectContaining({ kind: "tax", amount: { amount: "10.27", currency: "CAD" } }),
    ]);
    // TTL = min(requested, policy max, reputation cap): never past the 5 minutes asked for (§7.3).
    const ttl = ms(reply.body.expires_at) - before;
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(5 * 60_000 + 1000);

    const read = must(
      await agent.client.getHold(maple, reply.body.hold_id, { mandate: m.compact }),
      "get hold",
    );
    expect(read.body.offer).toBe(reply.body.offer);
    expect(read.body.status).toBe("held");
    must(await agent.client.releaseHold(maple, reply.body.hold_id, { mandate: m.compact }), "release");
  });

  it("releases a hold idempotently, and the time can be held again (§5.4)", async () => {
    const agent = newAgent(gw);
    const maple = await discover(agent, gw, "maple-street-auto");
    const [slot] = await freeSlots(agent, gw, maple, "brake-inspection", { fromDays: 3 });
    const m = await openMandate(agent, maple.hostId);
    const hold = must(
      await agent.client.hold(
        maple,
        { service_id: "brake-inspection", start: slot!.start },
        { mandate: m.compact },
      ),
      "hold",
    );
    const fillers = await fillUntilRefused(gw, maple, "brake-inspection", slot!.start);

    const released = must(
      await agent.client.releaseHold(maple, hold.body.hold_id, { mandate: m.compact }),
      "release",
    );
    expect(released.body.status).toBe("released");
    expect(released.body.offer).toBe(hold.body.offer);
    const again = must(
      await agent.client.releaseHold(maple, hold.body.hold_id, { mandate: m.compact }),
      "release again",
    );
    expect(again.body).toEqual(released.body);

    // The time was full; the release gave exactly one place back.
    const back = await fillUntilRefused(gw, maple, "brake-inspection", slot!.start);
    expect(back).toHaveLength(1);
    await releaseAll([...fillers, ...back]);
  });

  it("lets a guest choose a selectable resource, named in the offer and the consent text (§5.2)", async () => {
    const agent = newAgent(gw);
    const fades = await discover(agent, gw, "fades-on-queen");
    const [slot] = await freeSlots(agent, gw, fades, "haircut", { fromDays: 4 });
    const m = await openMandate(agent, fades.hostId);
    const hold = must(
      await agent.client.hold(
        fades,
        { service_id: "haircut", start: slot!.start, resource: "barber-marcus" },
        { mandate: m.compact },
      ),
      "hold",
    );
    const held = must(await verifyHoldOffer(hold.body, fades), "verify");
    expect(held.offer.claims).toMatchObject({ resource: "barber-marcus", resource_name: "Marcus" });
    const consent = must(await agent.keyApp.consentFor(hold.body.offer, fades), "consent");
    expect(consent.text).toMatch(/^Haircut with Marcus at Fades on Queen \(127\.0\.0\.1\), /);
    expect(consent.text).toContain("CAD 39.55, paid to Fades on Queen directly");
    must(await agent.client.releaseHold(fades, hold.body.hold_id, { mandate: m.compact }), "release");
  });

  it("holds an unpriced service with an offer that says nothing about money (§5.2)", async () => {
    const agent = newAgent(gw);
    const fades = await discover(agent, gw, "fades-on-queen");
    const [slot] = await freeSlots(agent, gw, fades, "consultation", { fromDays: 4 });
    const m = await openMandate(agent, fades.hostId);
    const hold = must(
      await agent.client.hold(
        fades,
        { service_id: "consultation", start: slot!.start },
        { mandate: m.compact },
      ),
      "hold",
    );
    const held = must(await verifyHoldOffer(hold.body, fades), "verify");
    for (const k of ["price", "total", "lines"] as const) {
      expect(hold.body[k as keyof Hold]).toBeUndefined();
      expect(held.offer.claims[k]).toBeUndefined();
    }
    const consent = must(await agent.keyApp.consentFor(hold.body.offer, fades), "consent");
    expect(consent.text).not.toMatch(/CAD|paid/);
    must(await agent.client.releaseHold(fades, hold.body.hold_id, { mandate: m.compact }), "release");
  });
});

describe("confirm, read and cancel (§5.3, §5.5, §5.6)", () => {
  it("books instantly (201), returns the booking with its JSCalendar event and a receipt", async () => {
    const agent = newAgent(gw);
    const maple = await discover(agent, gw, "maple-street-auto");
    const [slot] = await freeSlots(agent, gw, maple, "oil-change", { fromDays: 5 });
    const { reply, booking, held, mandate } = await holdAndBook(agent, maple, "oil-change", slot!.start);
    expect(reply.status).toBe(201);
    const b = booking.booking;
    expect(b).toMatchObject({
      status: "confirmed",
      sequence: 0,
      service_id: "oil-change",
      offer_sha256: held.offer.sha256,
    });
    expect(b.total).toEqual({ amount: "89.27", currency: "CAD" });
    expect(b.event).toMatchObject({
      "@type": "Event",
      timeZone: "America/Toronto",
      duration: "PT45M",
      sequence: 0,
      status: "confirmed",
    });
    expect(booking.receipt.consent).toEqual({ approved: "limits", mandate: mandate.jti });

    const read = must(
      await agent.client.getBooking(maple, b.booking_id, { mandate: mandate.compact }),
      "get booking",
    );
    const verified = must(
      await verifyBookingReceipt(read.body, maple, {
        bookingId: b.booking_id,
        offerSha256: held.offer.sha256,
      }),
      "verify read",
    );
    expect(verified.booking.status).toBe("confirmed");
  });

  it("records the person's approval of the exact offer under a closed mandate (§5.3 consent)", async () => {
    const agent = newAgent(gw);
    const maple = await discover(agent, gw, "maple-street-auto");
    const [slot] = await freeSlots(agent, gw, maple, "oil-change", { fromDays: 5 });
    const open = await openMandate(agent, maple.hostId, { scope: ["hold"] });
    const hold = must(
      await agent.client.hold(
        maple,
        { service_id: "oil-change", start: slot!.start },
        { mandate: open.compact },
      ),
      "hold",
    );
    const closed = must(
      await agent.keyApp.closedMandate(hold.body.offer, maple, { agent: agent.key }),
      "closed mandate",
    );
    expect(closed.consentText).toContain("Maple Street Auto (127.0.0.1)");
    const reply = must(
      await agent.client.confirm(
        maple,
        hold.body.hold_id,
        { offer_sha256: closed.offer.sha256 },
        { mandate: closed.compact },
      ),
      "confirm",
    );
    const v = must(
      await verifyBookingReceipt(reply.body, maple, {
        offerSha256: closed.offer.sha256,
        mandateJti: closed.jti,
      }),
      "receipt",
    );
    expect(v.receipt.consent).toEqual({ approved: "offer", mandate: closed.jti, mode: "human_present" });
  });

  it("cancels for free: 200, sequence + 1, a fresh receipt, the time free again; again returns it unchanged", async () => {
    const agent = newAgent(gw);
    const fades = await discover(agent, gw, "fades-on-queen");
    const [slot] = await freeSlots(agent, gw, fades, "haircut", { fromDays: 5 });
    const m = await openMandate(agent, fades.hostId);
    const body = { service_id: "haircut", start: slot!.start, resource: "barber-jordan" };
    const hold = must(await agent.client.hold(fades, body, { mandate: m.compact }), "hold Jordan");
    const hash = offerSha256(hold.body.offer);
    const conf = must(
      await agent.client.confirm(fades, hold.body.hold_id, { offer_sha256: hash }, { mandate: m.compact }),
      "confirm",
    );
    const booked = must(await verifyBookingReceipt(conf.body, fades, { offerSha256: hash }), "receipt");
    const id = booked.booking.booking_id;
    // Jordan's time is taken now.
    const other = newAgent(gw);
    const om = await openMandate(other, fades.hostId);
    expect(refusalOf(await other.client.hold(fades, body, { mandate: om.compact })).code).toBe(
      "SLOT_UNAVAILABLE",
    );

    const manage = await agent.keyApp.managementMandate(booked, { agent: agent.key });
    const cancelled = must(
      await agent.client.cancel(fades, id, { reason: "sick" }, { mandate: manage.compact }),
      "cancel",
    );
    expect(cancelled.status).toBe(200);
    const v = must(
      await verifyBookingReceipt(cancelled.body, fades, { bookingId: id, offerSha256: hash }),
      "receipt",
    );
    expect(v.booking).toMatchObject({ status: "cancelled", sequence: 1 });
    expect(v.booking.event.status).toBe("cancelled");
    // No fee or penalty anywhere in the answer or its receipt. Ids, hashes and signed tokens are
    // random base64url text, which spells "fee" now and then: they are left out of the search.
    const random = new Set(["booking_id", "offer_sha256", "uid", "receipt", "offer"]);
    const words = (x: unknown) =>
      JSON.stringify(x, (k, value: unknown) => (random.has(k) ? undefined : value));
    expect(words(cancelled.body)).not.toMatch(/fee|penalt/i);
    expect(words(v.booking)).not.toMatch(/fee|penalt/i);

    const twice = must(await agent.client.cancel(fades, id, {}, { mandate: manage.compact }), "cancel again");
    expect(twice.body.booking).toMatchObject({ status: "cancelled", sequence: 1 });

    // Jordan's time is free again (§5.6: the cancel frees the resource).
    const retaken = must(await other.client.hold(fades, body, { mandate: om.compact }), "hold Jordan again");
    must(await other.client.releaseHold(fades, retaken.body.hold_id, { mandate: om.compact }), "release");
  });

  it("confirms at a host_approval host with 202 pending_host; the operator approves it (§5.3, §7.9)", async () => {
    const agent = newAgent(gw);
    const dental = await discover(agent, gw, "harbourview-dental");
    const [slot] = await freeSlots(agent, gw, dental, "cleaning", { fromDays: 3 });
    const booked = await holdAndBook(agent, dental, "cleaning", slot!.start);
    expect(booked.reply.status).toBe(202);
    expect(booked.booking.booking.status).toBe("pending_host");
    expect(booked.held.offer.claims.approval_by).toBeDefined();
    const id = booked.booking.booking.booking_id;

    const list = await operator(gw, dental.hostId, "/bookings");
    expect(list.status).toBe(200);
    expect(JSON.stringify(list.json)).toContain(id);

    const approved = await operator(gw, dental.hostId, `/bookings/${id}/approve`, {});
    expect(approved.status).toBe(200);
    const read = must(await agent.client.getBooking(dental, id, { mandate: booked.mandate.compact }), "read");
    const v = must(await verifyBookingReceipt(read.body, dental, { bookingId: id }), "receipt");
    expect(v.booking.status).toBe("confirmed");
    expect(v.booking.answer).toMatchObject({ by: "host" });
  });

  it("lets the operator decline a pending booking, with a DECLINED refusal on it (§9.2)", async () => {
    const agent = newAgent(gw);
    const dental = await discover(agent, gw, "harbourview-dental");
    const [slot] = await freeSlots(agent, gw, dental, "cleaning", { fromDays: 4 });
    const booked = await holdAndBook(agent, dental, "cleaning", slot!.start);
    const id = booked.booking.booking.booking_id;
    const declined = await operator(gw, dental.hostId, `/bookings/${id}/decline`, { reason: "fully_booked" });
    expect(declined.status).toBe(200);
    const read = must(await agent.client.getBooking(dental, id, { mandate: booked.mandate.compact }), "read");
    expect(read.body.booking.status).toBe("declined");
    expect(read.body.booking.refusal).toMatchObject({
      code: "DECLINED",
      reason: expect.stringMatching(/^host_declined/) as string,
    });
  });

  it("lets the operator cancel a booking, with a CANCELLED refusal on it (§5.8)", async () => {
    const agent = newAgent(gw);
    const maple = await discover(agent, gw, "maple-street-auto");
    const [slot] = await freeSlots(agent, gw, maple, "brake-inspection", { fromDays: 6 });
    const booked = await holdAndBook(agent, maple, "brake-inspection", slot!.start);
    const id = booked.booking.booking.booking_id;
    const res = await operator(gw, maple.hostId, `/bookings/${id}/cancel`, { message: "bay flooded" });
    expect(res.status).toBe(200);
    const read = must(await agent.client.getBooking(maple, id, { mandate: booked.mandate.compact }), "read");
    const v = must(await verifyBookingReceipt(read.body, maple, { bookingId: id }), "receipt");
    expect(v.booking.status).toBe("cancelled");
    expect(v.booking.refusal).toMatchObject({ code: "CANCELLED", reason: "host_cancelled" });
  });

  it("refuses the operator API without the operator credential, even with an agent's signature", async () => {
    const agent = newAgent(gw);
    const url = `${gw.origin}/operator/v0/maple-street-auto/bookings`;
    expect((await fetch(url)).status).toBe(401);
    expect((await fetch(url, { headers: { authorization: "Bearer not-it" } })).status).toBe(401);
    const signed = must(await agent.client.signedFetch({ method: "GET", url }), "signed GET");
    expect(signed.status).toBe(401);
  });
});

describe("changes (§5.7, §5.8)", () => {
  async function bookedAt(hostId: string, serviceId: string, fromDays: number) {
    const agent = newAgent(gw);
    const host = await discover(agent, gw, hostId);
    const slots = await freeSlots(agent, gw, host, serviceId, { fromDays, limit: 50 });
    const booked = await holdAndBook(agent, host, serviceId, slots[0]!.start);
    return { agent, host, slots, booked, id: booked.booking.booking.booking_id };
  }

  it("moves a booking: change-offer holds the new time (201), reschedule swaps it (200, sequence + 1)", async () => {
    const { agent, host, slots, booked, id } = await bookedAt("maple-street-auto", "oil-change", 7);
    const newStart = slots.find((s) => ms(s.start) >= ms(slots[0]!.start) + 2 * 3_600_000)!.start;
    const opts = { mandate: booked.mandate.compact };
    const change = must(
      await agent.client.changeOffer(host, id, { sequence: 0, start: newStart }, opts),
      "change-offer",
    );
    expect(change.status).toBe(201);
    const p = change.body.proposal;
    expect(p).toMatchObject({ by: "guest" });
    expect(ms(p.start)).toBe(ms(newStart));
    const verified = must(
      await verifyChangeOffer(change.body, host, {
        bookingId: id,
        currentOfferSha256: booked.held.offer.sha256,
      }),
      "change offer verifies",
    );
    expect(verified.offer.claims).toMatchObject({
      kind: "change",
      booking_id: id,
      prev: booked.held.offer.sha256,
    });
    const consent = must(await agent.keyApp.consentFor(p.offer, host), "consent");
    expect(consent.text).toMatch(/^Change my booking to: /);

    const changeHash = offerSha256(p.offer);
    const fillers = await fillUntilRefused(gw, host, "oil-change", slots[0]!.start);
    const moved = must(
      await agent.client.reschedule(host, id, { sequence: 0, offer_sha256: changeHash }, opts),
      "reschedule",
    );
    expect(moved.status).toBe(200);
    const v = must(
      await verifyBookingReceipt(moved.body, host, {
        bookingId: id,
        offerSha256: changeHash,
        mandateJti: booked.mandate.jti,
      }),
      "receipt",
    );
    expect(v.booking.sequence).toBe(1);
    expect(ms(v.booking.start)).toBe(ms(newStart));
    expect(v.booking.offer_sha256).toBe(changeHash);

    // The old time was full; the move gave exactly the booking's place back.
    const back = await fillUntilRefused(gw, host, "oil-change", slots[0]!.start);
    expect(back).toHaveLength(1);
    await releaseAll([...fillers, ...back]);
  });

  it("lets the host propose a new time, which the agent accepts by its hash (§5.8 proposal-response)", async () => {
    const { agent, host, slots, booked, id } = await bookedAt("fades-on-queen", "haircut", 8);
    const newStart = slots.find((s) => ms(s.start) >= ms(slots[0]!.start) + 3 * 3_600_000)!.start;
    const proposed = await operator(gw, host.hostId, `/bookings/${id}/propose`, { start: newStart });
    expect(proposed.status).toBe(200);
    const read = must(await agent.client.getBooking(host, id, { mandate: booked.mandate.compact }), "read");
    const proposal = read.body.booking.proposal;
    expect(proposal).toMatchObject({ by: "host" });
    const hash = offerSha256(proposal!.offer);
    const accepted = must(
      await agent.client.proposalResponse(
        host,
        id,
        {
          proposal_id: proposal!.proposal_id,
          accept: true,
          sequence: read.body.booking.sequence,
          offer_sha256: hash,
        },
        { mandate: booked.mandate.compact },
      ),
      "proposal-response",
    );
    const v = must(
      await verifyBookingReceipt(accepted.body, host, { bookingId: id, offerSha256: hash }),
      "receipt",
    );
    expect(ms(v.booking.start)).toBe(ms(newStart));
    expect(v.booking.sequence).toBeGreaterThan(read.body.booking.sequence);
  });
});

describe("every response over HTTP is what the schemas allow", () => {
  it("answers unknown hosts, holds and bookings with NOT_FOUND in the refusal shape (§9.2)", async () => {
    const agent = newAgent(gw);
    const maple: DiscoveredHost = await discover(agent, gw, "maple-street-auto");
    const m = await openMandate(agent, maple.hostId);
    expect(refusalOf(await agent.client.getHold(maple, "h_nope", { mandate: m.compact }))).toMatchObject({
      status: 404,
      code: "NOT_FOUND",
    });
    expect(refusalOf(await agent.client.getBooking(maple, "b_nope", { mandate: m.compact }))).toMatchObject({
      status: 404,
      code: "NOT_FOUND",
    });
    const res = await fetch(`${gw.origin}/hosts/nobody/scheduling.json`);
    expect(res.status).toBe(404);
    expect(res.headers.get("schcp-version")).toBe("0.4");
    expect(validateSchcp("Refusal", await res.json()).ok).toBe(true);
  });

  it("answers the operator's booking list as the neutral view: no protocol's offer or receipt", async () => {
    const list = await operator(gw, "maple-street-auto", "/bookings");
    const bookings = (list.json as { bookings: Array<Record<string, unknown>> }).bookings;
    expect(bookings.length).toBeGreaterThan(0);
    for (const b of bookings) {
      expect(Object.keys(b)).toEqual(["booking"]);
      expect(b["booking"]).toMatchObject({
        booking_id: expect.stringMatching(/^b_/) as string,
        host_id: "maple-street-auto",
        edges: ["schcp"],
        service: { id: expect.any(String) as string },
        retention: expect.any(String) as string,
      });
      expect(b["booking"]).not.toHaveProperty("offer_sha256");
      expect(b["booking"]).not.toHaveProperty("receipt");
    }
  });
});
