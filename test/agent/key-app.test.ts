import { describe, expect, it } from "vitest";
import { KeyApp, createAgentKey } from "../../src/agent/index.js";
import { decodeCompactJws, jwkThumbprint, principalUrn } from "../../src/protocol/jose/index.js";
import { verifyMandate } from "../../src/protocol/schcp/mandate/index.js";
import { offerSha256 } from "../../src/protocol/schcp/offer/index.js";
import { T0, SLOT, discovered, openMandate, setup } from "./support/setup.js";

const payload = (compact: string) => {
  const d = decodeCompactJws(compact, "");
  if (!d.ok) throw new Error(d.error.message);
  return d.value.payload;
};

describe("KeyApp (SchCP §3.3, §5.3)", () => {
  it("issues open mandates a host verifies: iss the principal key's thumbprint, cnf.jkt the agent's", async () => {
    const principalKey = createAgentKey();
    const agent = createAgentKey();
    const app = new KeyApp({ principalKey, clock: { now: () => T0 } });
    const m = await app.issueMandate({
      agent,
      audience: "fake-barber",
      scope: ["hold", "book"],
      ttlSec: 600,
    });
    expect(app.principal).toBe(principalUrn(jwkThumbprint(principalKey.publicJwk)));
    expect(payload(m.compact)).toMatchObject({
      iss: app.principal,
      aud: "fake-barber",
      iat: T0 / 1000,
      exp: T0 / 1000 + 600,
      jti: m.jti,
      cnf: { jkt: agent.thumbprint },
      scope: ["hold", "book"],
      principal_jwk: principalKey.publicJwk,
    });
    const v = await verifyMandate(m.compact, {
      hostId: "fake-barber",
      nowSec: T0 / 1000,
      requestKeyThumbprint: agent.thumbprint,
    });
    expect(v.ok).toBe(true);
    const elsewhere = await verifyMandate(m.compact, {
      hostId: "other",
      nowSec: T0 / 1000,
      requestKeyThumbprint: agent.thumbprint,
    });
    expect(elsewhere.ok).toBe(false);
  });

  it("renders the consent text from the verified offer, with the discovered domain (§5.2, §5.3)", async () => {
    const ctx = setup();
    const host = await discovered(ctx.client);
    const m = await openMandate(ctx);
    const hold = await ctx.client.hold(host, { service_id: "trim", start: SLOT }, { mandate: m.compact });
    if (!hold.ok) throw new Error(hold.error.message);
    const consent = await ctx.keyApp.consentFor(hold.value.body.offer, host);
    expect(consent.ok && consent.value.text).toBe(
      "Trim with Fake Barber (fake-gateway.example), Tuesday 8 January 2030, 10:00–10:30 a.m. Eastern time, " +
        "CAD 22.60, paid to Fake Barber directly. Fake Barber keeps my booking details for 30 days after the booking.",
    );
    const unverified = await ctx.keyApp.consentFor(hold.value.body.offer, { ...host, consentDomain: null });
    expect(unverified.ok && unverified.value.text).toContain("Fake Barber (fake-barber, unverified)");
  });

  it("closes a mandate over the exact offer bytes: hash, slot window, total, scope book (§5.3)", async () => {
    const ctx = setup();
    const host = await discovered(ctx.client);
    const m = await openMandate(ctx);
    const hold = await ctx.client.hold(host, { service_id: "trim", start: SLOT }, { mandate: m.compact });
    if (!hold.ok) throw new Error(hold.error.message);
    const closed = await ctx.keyApp.closedMandate(hold.value.body.offer, host, { agent: ctx.agentKey });
    expect(closed.ok).toBe(true);
    if (!closed.ok) return;
    const claims = payload(closed.value.compact);
    expect(claims).toMatchObject({
      aud: "fake-barber",
      scope: ["book"],
      cnf: { jkt: ctx.agentKey.thumbprint },
      constraints: {
        offer_sha256: offerSha256(hold.value.body.offer),
        window: { not_before: "2030-01-08T10:00:00-05:00", not_after: "2030-01-08T10:30:00-05:00" },
        max_price: { amount: "22.60", currency: "CAD" },
      },
      consent: { mode: "human_present", statement: closed.value.consentText },
    });
    // The host books under it, and the receipt says the person approved this offer.
    const conf = await ctx.client.confirm(
      host,
      hold.value.body.hold_id,
      { offer_sha256: offerSha256(hold.value.body.offer) },
      { mandate: closed.value.compact },
    );
    expect(conf.ok).toBe(true);
    // Under a closed mandate, placing another hold is outside its scope.
    const more = await ctx.client.hold(
      host,
      { service_id: "trim", start: "2030-01-08T12:00:00-05:00" },
      { mandate: closed.value.compact },
    );
    expect(!more.ok && more.error.refusal?.code).toBe("MANDATE_SCOPE");
  });

  it("refuses to close a mandate over an offer it cannot verify (no sign-this-hash, §5.3)", async () => {
    const ctx = setup();
    const host = await discovered(ctx.client);
    const m = await openMandate(ctx);
    const hold = await ctx.client.hold(host, { service_id: "trim", start: SLOT }, { mandate: m.compact });
    if (!hold.ok) throw new Error(hold.error.message);
    const [h, p, s] = hold.value.body.offer.split(".");
    const edited = JSON.parse(Buffer.from(p!, "base64url").toString("utf8")) as { total: { amount: string } };
    edited.total.amount = "2.26";
    const tampered = `${h}.${Buffer.from(JSON.stringify(edited)).toString("base64url")}.${s}`;
    const r = await ctx.keyApp.closedMandate(tampered, host, { agent: ctx.agentKey });
    expect(!r.ok && r.error.code).toBe("offer_invalid");
  });

  it("closes a change offer with scope reschedule (§5.3, §5.7)", async () => {
    const ctx = setup();
    const host = await discovered(ctx.client);
    const m = await openMandate(ctx);
    const hold = await ctx.client.hold(host, { service_id: "trim", start: SLOT }, { mandate: m.compact });
    if (!hold.ok) throw new Error(hold.error.message);
    const conf = await ctx.client.confirm(
      host,
      hold.value.body.hold_id,
      { offer_sha256: offerSha256(hold.value.body.offer) },
      { mandate: m.compact },
    );
    if (!conf.ok) throw new Error(conf.error.message);
    const change = await ctx.client.changeOffer(
      host,
      conf.value.body.booking.booking_id,
      { sequence: 0, start: "2030-01-08T11:00:00-05:00" },
      { mandate: m.compact },
    );
    if (!change.ok) throw new Error(change.error.message);
    const closed = await ctx.keyApp.closedMandate(change.value.body.proposal.offer, host, {
      agent: ctx.agentKey,
    });
    expect(closed.ok && payload(closed.value.compact).scope).toEqual(["reschedule"]);
    expect(closed.ok && closed.value.consentText).toMatch(/^Change my booking to: Trim with Fake Barber/);
  });

  it("issues a management mandate for one booking, until its end plus one hour (§3.3)", async () => {
    const ctx = setup();
    const m = await ctx.keyApp.managementMandate(
      {
        hostId: "fake-barber",
        booking: {
          booking_id: "b_1",
          start: "2030-01-08T10:00:00-05:00",
          end: "2030-01-08T10:30:00-05:00",
        } as never,
      },
      { agent: ctx.agentKey },
    );
    expect(payload(m.compact)).toMatchObject({
      aud: "fake-barber",
      scope: ["cancel", "reschedule"],
      constraints: { bookings: ["b_1"] },
      exp: Date.parse("2030-01-08T15:30:00Z") / 1000 + 3600,
    });
  });
});
