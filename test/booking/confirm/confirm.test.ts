import { describe, expect, it } from "vitest";
import { confirmHold } from "../../../src/edges/schcp/confirm.js";
import { verifyReceipt } from "../../../src/protocol/schcp/receipt/index.js";
import { validateSchcp } from "../../../src/protocol/schcp/validate.js";
import {
  APPROVAL,
  INSTANT,
  MINUTE,
  callerFor,
  discoveryKeys,
  makeHost,
  makeWorld,
  newParty,
  placeTestHold,
  refusalOf,
  unwrap,
} from "../bookings/world.js";

async function setup(hostId = INSTANT) {
  const world = makeWorld([makeHost("closed-shop", "Closed Shop", { closedMandate: "always" })]);
  const host = world.host(hostId);
  const party = newParty();
  const caller = await callerFor(world, party, { hostId });
  const hold = await placeTestHold(world, host, caller, { callbackUrl: "https://agent.example/hooks" });
  const confirm = (c = caller, hash = hold.offerSha256) =>
    confirmHold(world.deps, hostId, c, hold.record.holdId, { idempotency_key: "k1", offer_sha256: hash });
  return { world, host, party, caller, hold, confirm };
}

describe("POST /holds/{id}/confirm (SchCP §5.3)", () => {
  it("books at an instant host: 201 confirmed, sequence 0, a receipt that verifies", async () => {
    const { world, host, caller, hold, confirm } = await setup();
    const r = unwrap(await confirm());
    expect(r.status).toBe(201);
    expect(validateSchcp("BookingResponse", r.body).ok).toBe(true);
    const b = r.body.booking;
    expect(b).toMatchObject({
      status: "confirmed",
      sequence: 0,
      service_id: "oil-change",
      offer_sha256: hold.offerSha256,
    });
    expect(b.total).toEqual({ amount: "89.27", currency: "CAD" });
    expect(b.answer?.by).toBe("host");
    expect(b.event).toMatchObject({
      "@type": "Event",
      start: "2030-01-08T10:00:00",
      timeZone: "America/Toronto",
      duration: "PT45M",
      title: "Synthetic oil change — Maple Street Auto",
      status: "confirmed",
      sequence: 0,
    });
    expect(r.body.offer).toBe(hold.offer);
    const receipt = await verifyReceipt(r.body.receipt, discoveryKeys(host), {
      expectedIss: INSTANT,
      offerSha256: hold.offerSha256,
      mandateJti: caller.mandate?.root.claims.jti,
      retention: "P365D",
      bookingId: b.booking_id,
    });
    expect(receipt.ok).toBe(true);
    if (receipt.ok)
      expect(receipt.value.claims.consent).toEqual({
        approved: "limits",
        mandate: caller.mandate?.root.claims.jti,
        mode: "human_present",
      });
    // The upstream create carries the hold's idempotency key, which reconciliation looks it up by.
    expect(host.connector.calls.create).toBe(1);
    expect(host.connector.byKey(`${INSTANT}:${hold.record.holdId}`)?.status).toBe("confirmed");
    const after = await world.store.getHold(INSTANT, hold.record.holdId, world.clock.now());
    expect(after?.state).toBe("booked");
    const rep = await world.store.reputation({ kind: "agent", id: caller.agentKey }, world.clock.now());
    expect(rep.confirmed).toBeGreaterThan(0);
  });

  it("at a host_approval host: 202 pending_host, a tentative upstream booking and approval_by", async () => {
    const { host, hold, confirm } = await setup(APPROVAL);
    const r = unwrap(await confirm());
    expect(r.status).toBe(202);
    expect(r.body.booking.status).toBe("pending_host");
    expect(r.body.booking.approval_by).toBeDefined();
    expect(r.body.booking.answer).toBeUndefined();
    expect(r.body.booking.event.status).toBe("tentative");
    expect(host.connector.byKey(`${APPROVAL}:${hold.record.holdId}`)?.status).toBe("tentative");
    expect(validateSchcp("BookingResponse", r.body).ok).toBe(true);
  });

  it("refuses another hash with 409 CONTRACT_MISMATCH naming the hold's offer_sha256", async () => {
    const { world, hold, confirm, caller } = await setup();
    const e = refusalOf(await confirm(caller, "A".repeat(43)), "CONTRACT_MISMATCH", "contract_mismatch");
    expect(e.details).toEqual({ offer_sha256: hold.offerSha256 });
    expect((await world.store.getHold(INSTANT, hold.record.holdId, world.clock.now()))?.state).toBe("held");
  });

  it("closed_mandate always: an open mandate is 403 OFFER_APPROVAL_REQUIRED with approve_offer; a closed root books", async () => {
    const { world, party, hold, confirm } = await setup("closed-shop");
    const e = refusalOf(await confirm(), "OFFER_APPROVAL_REQUIRED", "closed_approval_required");
    expect(e.remedies).toEqual([{ type: "approve_offer", offer_sha256: hold.offerSha256 }]);
    const closed = await callerFor(world, party, {
      hostId: "closed-shop",
      scope: ["book"],
      constraints: { offer_sha256: hold.offerSha256 },
    });
    const r = unwrap(await confirm(closed));
    expect(r.status).toBe(201);
    const claims = JSON.parse(Buffer.from(r.body.receipt.split(".")[1] ?? "", "base64url").toString()) as {
      consent: { approved: string };
    };
    expect(claims.consent.approved).toBe("offer");
  });

  it("needs book in scope (403 MANDATE_SCOPE) and a total within max_price (403 MANDATE_LIMIT)", async () => {
    const { world, party, confirm } = await setup();
    const noBook = await callerFor(world, party, { scope: ["hold", "cancel"] });
    refusalOf(await confirm(noBook), "MANDATE_SCOPE", "not_in_scope");
    const cheap = await callerFor(world, party, {
      constraints: { max_price: { amount: "50.00", currency: "CAD" } },
    });
    refusalOf(await confirm(cheap), "MANDATE_LIMIT", "over_max_price");
    const enough = await callerFor(world, party, {
      constraints: { max_price: { amount: "89.27", currency: "CAD" } },
    });
    expect(unwrap(await confirm(enough)).status).toBe(201);
  });

  it("another principal's hold is not found; no mandate is MANDATE_INVALID", async () => {
    const { world, confirm } = await setup();
    const stranger = await callerFor(world, newParty());
    refusalOf(await confirm(stranger), "NOT_FOUND");
    refusalOf(await confirm({ agentKey: "x" }), "MANDATE_INVALID");
  });

  it("a second confirm of a booked hold answers the booking it made; an expired hold is 409 INVALID_STATE", async () => {
    const { world, host, caller, confirm } = await setup();
    const first = unwrap(await confirm());
    // The agent lost the first answer: the retry learns the same booking, and nothing is made twice.
    const again = unwrap(await confirm());
    expect(again.body.booking.booking_id).toBe(first.body.booking.booking_id);
    expect(again.status).toBe(first.status);
    const late = await placeTestHold(world, host, caller, { start: Date.UTC(2030, 0, 9, 15, 0) });
    world.clock.advance(11 * MINUTE);
    const r = await confirmHold(world.deps, INSTANT, caller, late.record.holdId, {
      idempotency_key: "k2",
      offer_sha256: late.offerSha256,
    });
    refusalOf(r, "INVALID_STATE");
  });
});

describe("confirm: access and shared limits", () => {
  it("§7.8 a contacts-only host checks membership at the confirm: 403 NOT_PERMITTED not_a_contact", async () => {
    const world = makeWorld([makeHost("private", "Private", { access: "contacts", contacts: [] })]);
    const host = world.host("private");
    const caller = await callerFor(world, newParty(), { hostId: "private" });
    const hold = await placeTestHold(world, host, caller);
    const e = refusalOf(
      await confirmHold(world.deps, "private", caller, hold.record.holdId, {
        idempotency_key: "k",
        offer_sha256: hold.offerSha256,
      }),
      "NOT_PERMITTED",
      "not_a_contact",
    );
    expect(e.basis).toEqual({ policy: "access", access: "contacts" });
  });

  it("§3.3 a shared booking limit the gateway cannot claim refuses the confirm (shared_limit_reached)", async () => {
    const { world, party, confirm } = await setup();
    const shared = await callerFor(world, party, { constraints: { max_bookings: 1, shared_limit: true } });
    refusalOf(await confirm(shared), "MANDATE_LIMIT", "shared_limit_reached");
  });
});

describe("the two-phase create against the upstream", () => {
  it("slot taken upstream: 409 SLOT_UNAVAILABLE and the hold released", async () => {
    const { world, host, hold, confirm } = await setup();
    host.connector.fail("create", "slot_taken");
    refusalOf(await confirm(), "SLOT_UNAVAILABLE", "slot_taken");
    expect((await world.store.getHold(INSTANT, hold.record.holdId, world.clock.now()))?.state).toBe(
      "released",
    );
  });

  it("429 upstream: 503 upstream_rate_limited with retry, the hold held again, and a retry books", async () => {
    const { world, host, hold, confirm } = await setup();
    host.connector.fail("create", "rate_limited", 1, 2_000);
    const e = refusalOf(await confirm(), "UPSTREAM_UNAVAILABLE", "upstream_rate_limited");
    expect(e.retryAfterMs).toBe(2_000);
    expect(e.remedies).toEqual([{ type: "retry", after: "PT2S" }]);
    expect((await world.store.getHold(INSTANT, hold.record.holdId, world.clock.now()))?.state).toBe("held");
    expect(unwrap(await confirm()).status).toBe(201);
    expect(host.connector.appointments.size).toBe(1);
  });

  it("5xx with nothing made upstream: 503 and the hold held again", async () => {
    const { world, host, hold, confirm } = await setup();
    host.connector.fail("create", "unavailable");
    refusalOf(await confirm(), "UPSTREAM_UNAVAILABLE", "upstream_unavailable");
    expect((await world.store.getHold(INSTANT, hold.record.holdId, world.clock.now()))?.state).toBe("held");
    expect(host.connector.appointments.size).toBe(0);
  });

  it("a timeout after the upstream made the booking: found by key and recorded, never created twice", async () => {
    const { host, confirm } = await setup();
    host.connector.loseNextCreateAnswer = true;
    expect(unwrap(await confirm()).status).toBe(201);
    expect(host.connector.calls.create).toBe(1);
    expect(host.connector.appointments.size).toBe(1);
  });

  it("a timeout and the upstream unreachable: the hold stays confirming for reconciliation", async () => {
    const { world, host, hold, confirm } = await setup();
    host.connector.fail("create", "timeout");
    host.connector.fail("find", "unavailable");
    refusalOf(await confirm(), "UPSTREAM_UNAVAILABLE");
    expect((await world.store.getHold(INSTANT, hold.record.holdId, world.clock.now()))?.state).toBe(
      "confirming",
    );
  });
});
