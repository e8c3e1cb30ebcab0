/**
 * End to end: the who/when/where rules of SchCP §5.2 that a host can configure, each refused
 * with its registered reason and the rule in basis — place and service area, a release
 * schedule, the walk-in reserve (§7.2), party size, new-guests-only eligibility — and an
 * upstream that is rate-limiting the gateway (503 with Retry-After).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyBookingReceipt, verifyHoldOffer } from "../../src/agent/index.js";
import type { SyntheticConnector } from "../../src/connectors/synthetic/index.js";
import { formatInstant } from "../../src/protocol/time/index.js";
import {
  DAY_MS,
  HOUR_MS,
  discover,
  freeSlots,
  holdAndBook,
  must,
  newAgent,
  openMandate,
  operator,
  refusalOf,
} from "./support/agents.js";
import { defaultConfig, startGateway } from "./support/gateway.js";
import type { E2eGateway } from "./support/gateway.js";

let gw: E2eGateway;
beforeAll(async () => {
  const config = defaultConfig();
  for (const host of config.hosts) {
    if (host.id === "maple-street-auto") {
      host.policies = { ...host.policies, service_area: { country: "CA", postal_prefixes: ["M4", "M5"] } };
      host["services"] = [
        { service_id: "brake-inspection", location: "guest" },
        { service_id: "oil-change", booking_window: { opens: { days_ahead: 3, at: "10:00" } } },
      ];
    }
    if (host.id === "fades-on-queen") {
      host.policies = { ...host.policies, walk_in_reserve: [{ resource_type: "barber", keep: 1 }] };
      host["services"] = [
        { service_id: "haircut", selectable: true, eligibility: { guest: "new" } },
        { service_id: "consultation", selectable: true, party_size: { min: 1, max: 2 } },
      ];
    }
  }
  gw = await startGateway({ config });
});
afterAll(async () => {
  await gw?.close();
});

/** A whole hour `days` ahead, in the host's zone (a start the hours may or may not allow). */
const hourAhead = (days: number, tz = "America/Toronto") =>
  formatInstant(Math.ceil((gw.clock.now() + days * DAY_MS) / HOUR_MS) * HOUR_MS, tz);

describe("place and service area (§5.2)", () => {
  it("needs a place for a service at the guest's, inside the published service area", async () => {
    const agent = newAgent(gw);
    const maple = await discover(agent, gw, "maple-street-auto");
    expect(maple.document.services.find((s) => s.id === "brake-inspection")?.location).toBe("guest");
    const [slot] = await freeSlots(agent, gw, maple, "brake-inspection");
    const m = await openMandate(agent, maple.hostId);
    const hold = (place?: object) =>
      agent.client.hold(
        maple,
        { service_id: "brake-inspection", start: slot!.start, ...(place && { place }) },
        { mandate: m.compact },
      );

    expect(refusalOf(await hold())).toMatchObject({
      status: 422,
      code: "OUT_OF_SERVICE_AREA",
      reason: "place_required",
    });
    expect(refusalOf(await hold({ name: "Home" }))).toMatchObject({
      code: "OUT_OF_SERVICE_AREA",
      reason: "place_required",
    });
    const far = refusalOf(await hold({ postal_code: "V6B 1A1", country: "CA" }));
    expect(far).toMatchObject({ status: 422, code: "OUT_OF_SERVICE_AREA", reason: "outside_service_area" });

    const place = { street: "12 Maple St", locality: "Toronto", postal_code: "M5V 2T6", country: "CA" };
    const ok = must(await hold(place), "hold at the guest's");
    expect(ok.body.place).toEqual(place);
    const held = must(await verifyHoldOffer(ok.body, maple), "offer");
    expect(held.offer.claims.place).toEqual(place);
    const consent = must(await agent.keyApp.consentFor(ok.body.offer, maple), "consent");
    expect(consent.text).toContain("at 12 Maple St, Toronto, M5V 2T6, CA");
    must(await agent.client.releaseHold(maple, ok.body.hold_id, { mandate: m.compact }), "release");
  });
});

describe("release schedule (§5.2)", () => {
  it("refuses a day not yet released (422 not_yet_released, schedule in basis) and does not offer it", async () => {
    const agent = newAgent(gw);
    const maple = await discover(agent, gw, "maple-street-auto");
    const m = await openMandate(agent, maple.hostId);
    const r = refusalOf(
      await agent.client.hold(
        maple,
        { service_id: "oil-change", start: hourAhead(10) },
        { mandate: m.compact },
      ),
    );
    expect(r).toMatchObject({ status: 422, code: "OUTSIDE_BOOKING_WINDOW", reason: "not_yet_released" });
    expect(r.basis).toMatchObject({ days_ahead: 3, at: "10:00" });
    const slots = await freeSlots(agent, gw, maple, "oil-change", { fromDays: 0, toDays: 10, limit: 500 });
    for (const s of slots) expect(Date.parse(s.start)).toBeLessThan(gw.clock.now() + 4 * DAY_MS);
  });
});

describe("walk-in reserve (§7.2) and party size (§5.2)", () => {
  it("keeps one barber for walk-ins: the second hold at a time is SLOT_UNAVAILABLE walk_in_reserve", async () => {
    const agent = newAgent(gw);
    const fades = await discover(agent, gw, "fades-on-queen");
    const [slot] = await freeSlots(agent, gw, fades, "consultation", { fromDays: 3 });
    const m = await openMandate(agent, fades.hostId);
    const first = must(
      await agent.client.hold(
        fades,
        { service_id: "consultation", start: slot!.start },
        { mandate: m.compact },
      ),
      "first",
    );
    const other = newAgent(gw);
    const m2 = await openMandate(other, fades.hostId);
    const r = refusalOf(
      await other.client.hold(
        fades,
        { service_id: "consultation", start: slot!.start },
        { mandate: m2.compact },
      ),
    );
    expect(r).toMatchObject({ status: 409, code: "SLOT_UNAVAILABLE", reason: "walk_in_reserve" });
    must(await agent.client.releaseHold(fades, first.body.hold_id, { mandate: m.compact }), "release");
  });

  it("refuses a party outside the service's range (400 INVALID_REQUEST party_size) and echoes one inside it", async () => {
    const agent = newAgent(gw);
    const fades = await discover(agent, gw, "fades-on-queen");
    const [slot] = await freeSlots(agent, gw, fades, "consultation", { fromDays: 4 });
    const m = await openMandate(agent, fades.hostId);
    const body = (party_size: number) => ({ service_id: "consultation", start: slot!.start, party_size });
    expect(refusalOf(await agent.client.hold(fades, body(3), { mandate: m.compact }))).toMatchObject({
      status: 400,
      code: "INVALID_REQUEST",
      reason: "party_size",
    });
    const two = must(await agent.client.hold(fades, body(2), { mandate: m.compact }), "party of two");
    expect(two.body.party_size).toBe(2);
    const consent = must(await agent.keyApp.consentFor(two.body.offer, fades), "consent");
    expect(consent.text).toContain("for 2 people");
    must(await agent.client.releaseHold(fades, two.body.hold_id, { mandate: m.compact }), "release");
  });
});

describe("the upstream rate-limits the gateway", () => {
  it("answers 503 UPSTREAM_UNAVAILABLE upstream_rate_limited with Retry-After", async () => {
    const agent = newAgent(gw);
    const maple = await discover(agent, gw, "maple-street-auto");
    const connector = gw.runtime.hosts.get("maple-street-auto")!.connector as SyntheticConnector;
    connector.faults.add({ operation: "findAvailability", fault: "rate_limited", retryAfterSeconds: 7 });
    const r = await agent.client.availability(maple, {
      service_id: "brake-inspection",
      window: { start: hourAhead(2), end: hourAhead(3) },
    });
    expect(refusalOf(r)).toMatchObject({
      status: 503,
      code: "UPSTREAM_UNAVAILABLE",
      reason: "upstream_rate_limited",
    });
    expect(!r.ok && r.error.retryAfterSec).toBeGreaterThanOrEqual(7);
  });
});

describe("eligibility: new guests only (§5.2, §7.2)", () => {
  it("serves a new guest, then refuses the same person once they have kept an appointment (403 new_guests_only)", async () => {
    const agent = newAgent(gw);
    const fades = await discover(agent, gw, "fades-on-queen");
    const [slot] = await freeSlots(agent, gw, fades, "haircut", { fromDays: 2 });
    const m = await openMandate(agent, fades.hostId, { ttlSec: 30 * 86_400 });
    const booked = await holdAndBook(agent, fades, "haircut", slot!.start, m);
    const id = booked.booking.booking.booking_id;
    gw.clock.advance(Date.parse(booked.booking.booking.end!) + 60_000 - gw.clock.now());
    expect(
      (await operator(gw, fades.hostId, `/bookings/${id}/attendance`, { status: "completed" })).status,
    ).toBe(200);
    const read = must(await agent.client.getBooking(fades, id, { mandate: m.compact }), "read");
    expect(
      must(await verifyBookingReceipt(read.body, fades, { bookingId: id }), "receipt").booking.status,
    ).toBe("completed");

    const [next] = await freeSlots(agent, gw, fades, "haircut", { fromDays: 2 });
    expect(
      refusalOf(
        await agent.client.hold(fades, { service_id: "haircut", start: next!.start }, { mandate: m.compact }),
      ),
    ).toMatchObject({
      status: 403,
      code: "NOT_ELIGIBLE",
      reason: "new_guests_only",
    });
  });
});
