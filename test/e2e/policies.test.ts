/**
 * End to end: the refusals that need a host policy the embedded default does not set — the
 * same three synthetic hosts, configured in the hosts-config file format with: closed mandates
 * always (§5.3), contacts-only access (§7.8), a booking window (§5.2), returning guests only
 * (§7.2) and a small new-guest pool (§7.2).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KeyApp, createAgentKey } from "../../src/agent/index.js";
import { offerSha256 } from "../../src/protocol/schcp/offer/index.js";
import { formatInstant } from "../../src/protocol/time/index.js";
import {
  DAY_MS,
  HOUR_MS,
  discover,
  freeSlots,
  must,
  newAgent,
  openMandate,
  refusalOf,
} from "./support/agents.js";
import type { E2eAgent } from "./support/agents.js";
import { defaultConfig, startGateway } from "./support/gateway.js";
import type { E2eGateway } from "./support/gateway.js";

let gw: E2eGateway;
/** The one principal on fades-on-queen's contact list. */
const contactKey = createAgentKey();
const contactPrincipal = new KeyApp({ principalKey: contactKey }).principal;

beforeAll(async () => {
  const config = defaultConfig();
  for (const host of config.hosts) {
    if (host.id === "harbourview-dental") host.policies = { ...host.policies, closed_mandate: "always" };
    if (host.id === "fades-on-queen")
      host.policies = { ...host.policies, access: "contacts", contacts: [contactPrincipal] };
    if (host.id === "maple-street-auto") {
      host.policies = { ...host.policies, holds: { max_active_unproven: 2 } };
      host["services"] = [
        { service_id: "oil-change", booking_window: { min_notice: "PT24H", max_advance: "P14D" } },
        { service_id: "brake-inspection", eligibility: { guest: "returning" } },
      ];
    }
  }
  gw = await startGateway({ config });
});
afterAll(async () => {
  await gw?.close();
});

describe("closed_mandate: always (§5.3)", () => {
  it("refuses an open mandate's confirm with OFFER_APPROVAL_REQUIRED, then books under the closed one", async () => {
    const agent = newAgent(gw);
    const dental = await discover(agent, gw, "harbourview-dental");
    expect(dental.document.policies.closed_mandate).toBe("always");
    const [slot] = await freeSlots(agent, gw, dental, "cleaning");
    const open = await openMandate(agent, dental.hostId);
    const hold = must(
      await agent.client.hold(
        dental,
        { service_id: "cleaning", start: slot!.start },
        { mandate: open.compact },
      ),
      "hold",
    );
    const hash = offerSha256(hold.body.offer);
    const body = { offer_sha256: hash, idempotency_key: "approve-me" };
    const r = refusalOf(
      await agent.client.confirm(dental, hold.body.hold_id, body, { mandate: open.compact }),
    );
    expect(r).toMatchObject({
      status: 403,
      code: "OFFER_APPROVAL_REQUIRED",
      reason: "closed_approval_required",
    });
    expect(r.details).toMatchObject({ offer_sha256: hash });
    expect(r.remedies).toContainEqual({ type: "approve_offer", offer_sha256: hash });

    // §9.1: the 403 was not stored, so the same key goes through with the closed mandate.
    const closed = must(
      await agent.keyApp.closedMandate(hold.body.offer, dental, { agent: agent.key }),
      "closed",
    );
    const booked = must(
      await agent.client.confirm(dental, hold.body.hold_id, body, { mandate: closed.compact }),
      "confirm",
    );
    expect(booked.status).toBe(202);
  });

  it("does not count an agent-signed child carrying the hash as the person's approval (§5.3)", async () => {
    const agent = newAgent(gw);
    const dental = await discover(agent, gw, "harbourview-dental");
    const [slot] = await freeSlots(agent, gw, dental, "cleaning", { fromDays: 3 });
    const open = await openMandate(agent, dental.hostId, { scope: ["hold", "book", "delegate"] });
    const hold = must(
      await agent.client.hold(
        dental,
        { service_id: "cleaning", start: slot!.start },
        { mandate: open.compact },
      ),
      "hold",
    );
    const hash = offerSha256(hold.body.offer);
    const { delegateMandate } = await import("../../src/protocol/schcp/mandate/index.js");
    const now = Math.floor(gw.clock.now() / 1000);
    const child = await delegateMandate(
      open.compact,
      {
        aud: dental.hostId,
        iat: now,
        exp: now + 600,
        jti: "child-1",
        cnf: { jkt: agent.key.thumbprint },
        scope: ["book"],
        constraints: { offer_sha256: hash },
      },
      agent.key,
    );
    const r = refusalOf(
      await agent.client.confirm(dental, hold.body.hold_id, { offer_sha256: hash }, { mandate: child }),
    );
    expect(r).toMatchObject({ status: 403, code: "OFFER_APPROVAL_REQUIRED" });
    must(await agent.client.releaseHold(dental, hold.body.hold_id, { mandate: open.compact }), "release");
  });
});

describe("contacts-only access (§7.8)", () => {
  it("refuses availability and holds from a principal not on the list (403 NOT_PERMITTED not_a_contact)", async () => {
    const stranger = newAgent(gw);
    const fades = await discover(stranger, gw, "fades-on-queen");
    const window = {
      start: formatInstant(gw.clock.now() + 2 * DAY_MS),
      end: formatInstant(gw.clock.now() + 9 * DAY_MS),
    };
    const noMandate = refusalOf(await stranger.client.availability(fades, { service_id: "haircut", window }));
    expect(noMandate).toMatchObject({ status: 403, code: "NOT_PERMITTED", reason: "not_a_contact" });
    const m = await openMandate(stranger, fades.hostId);
    expect(
      refusalOf(
        await stranger.client.availability(fades, { service_id: "haircut", window }, { mandate: m.compact }),
      ),
    ).toMatchObject({
      code: "NOT_PERMITTED",
    });
    expect(JSON.stringify(noMandate)).not.toContain(contactPrincipal);
  });

  it("serves its contact", async () => {
    const friend: E2eAgent = {
      ...newAgent(gw),
      keyApp: new KeyApp({ principalKey: contactKey, clock: gw.clock }),
    };
    const fades = await discover(friend, gw, "fades-on-queen");
    const m = await openMandate(friend, fades.hostId);
    const slots = await freeSlots(friend, gw, fades, "haircut", { mandate: m.compact });
    expect(slots.length).toBeGreaterThan(0);
    const hold = must(
      await friend.client.hold(
        fades,
        { service_id: "haircut", start: slots[0]!.start },
        { mandate: m.compact },
      ),
      "hold",
    );
    must(await friend.client.releaseHold(fades, hold.body.hold_id, { mandate: m.compact }), "release");
  });
});

describe("booking window and eligibility (§5.2)", () => {
  it("refuses a start inside the minimum notice and past the maximum advance (422 OUTSIDE_BOOKING_WINDOW)", async () => {
    const agent = newAgent(gw);
    const maple = await discover(agent, gw, "maple-street-auto");
    const m = await openMandate(agent, maple.hostId);
    const tz = "America/Toronto";
    const soon = formatInstant(Math.ceil((gw.clock.now() + 2 * HOUR_MS) / (15 * 60_000)) * 15 * 60_000, tz);
    const soonR = refusalOf(
      await agent.client.hold(maple, { service_id: "oil-change", start: soon }, { mandate: m.compact }),
    );
    expect(soonR).toMatchObject({ status: 422, code: "OUTSIDE_BOOKING_WINDOW", reason: "min_notice" });
    expect(soonR.basis).toMatchObject({ policy: "booking_window.min_notice" });
    const far = formatInstant(Math.ceil((gw.clock.now() + 20 * DAY_MS) / (15 * 60_000)) * 15 * 60_000, tz);
    expect(
      refusalOf(
        await agent.client.hold(maple, { service_id: "oil-change", start: far }, { mandate: m.compact }),
      ),
    ).toMatchObject({
      status: 422,
      code: "OUTSIDE_BOOKING_WINDOW",
      reason: "max_advance",
    });
    // Availability offers only starts a hold would be granted (§5.1).
    const slots = await freeSlots(agent, gw, maple, "oil-change", { fromDays: 0, toDays: 20, limit: 500 });
    for (const s of slots) {
      const t = Date.parse(s.start);
      expect(t).toBeGreaterThanOrEqual(gw.clock.now() + 24 * HOUR_MS - 60_000);
      expect(t).toBeLessThanOrEqual(gw.clock.now() + 14 * DAY_MS + 60_000);
    }
  });

  it("refuses a new guest a returning-guests-only service (403 NOT_ELIGIBLE returning_guests_only)", async () => {
    const agent = newAgent(gw);
    const maple = await discover(agent, gw, "maple-street-auto");
    const m = await openMandate(agent, maple.hostId);
    const start = formatInstant(
      Math.ceil((gw.clock.now() + 3 * DAY_MS) / HOUR_MS) * HOUR_MS,
      "America/Toronto",
    );
    expect(
      refusalOf(
        await agent.client.hold(maple, { service_id: "brake-inspection", start }, { mandate: m.compact }),
      ),
    ).toMatchObject({
      status: 403,
      code: "NOT_ELIGIBLE",
      reason: "returning_guests_only",
    });
  });
});

describe("the new-guest pool (§7.2)", () => {
  it("refuses a third unproven guest's hold while two are held (429 HOLD_LIMIT new_guest_pool_full, retry)", async () => {
    const probe = newAgent(gw);
    const maple = await discover(probe, gw, "maple-street-auto");
    const slots = await freeSlots(probe, gw, maple, "oil-change", { fromDays: 3, limit: 50 });
    const held: { a: E2eAgent; id: string; m: string }[] = [];
    for (let i = 0; i < 2; i++) {
      const a = newAgent(gw);
      const m = (await openMandate(a, maple.hostId)).compact;
      const r = must(
        await a.client.hold(maple, { service_id: "oil-change", start: slots[i * 8]!.start }, { mandate: m }),
        `hold ${i}`,
      );
      held.push({ a, id: r.body.hold_id, m });
    }
    const third = newAgent(gw);
    const m3 = await openMandate(third, maple.hostId);
    const r = await third.client.hold(
      maple,
      { service_id: "oil-change", start: slots[24]!.start },
      { mandate: m3.compact },
    );
    expect(refusalOf(r)).toMatchObject({ status: 429, code: "HOLD_LIMIT", reason: "new_guest_pool_full" });
    expect(!r.ok && r.error.retryAfterSec).toBeGreaterThan(0);
    for (const h of held) must(await h.a.client.releaseHold(maple, h.id, { mandate: h.m }), "release");
  });
});
