import { describe, expect, it } from "vitest";
import { verifyBookingReceipt, verifyChangeOffer, verifyHoldOffer } from "../../src/agent/index.js";
import type { DiscoveredHost } from "../../src/agent/index.js";
import { generateEd25519KeyPair, signCompactJws } from "../../src/protocol/jose/index.js";
import { offerSha256, signOffer } from "../../src/protocol/schcp/offer/index.js";
import type { BookingResponse, Hold, OfferClaims } from "../../src/protocol/schcp/types.js";
import { SLOT, discovered, openMandate, setup } from "./support/setup.js";

async function heldAndBooked() {
  const ctx = setup();
  const host = await discovered(ctx.client);
  const mandate = await openMandate(ctx);
  const hold = await ctx.client.hold(host, { service_id: "trim", start: SLOT }, { mandate: mandate.compact });
  if (!hold.ok) throw new Error(hold.error.message);
  const hash = offerSha256(hold.value.body.offer);
  const conf = await ctx.client.confirm(
    host,
    hold.value.body.hold_id,
    { offer_sha256: hash },
    { mandate: mandate.compact },
  );
  if (!conf.ok) throw new Error(conf.error.message);
  return { ctx, host, mandate, hold: hold.value.body, hash, booking: conf.value.body };
}

function claimsOf(compact: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(compact.split(".")[1]!, "base64url").toString("utf8")) as Record<
    string,
    unknown
  >;
}

describe("verifyHoldOffer (SchCP §5.2)", () => {
  it("accepts a hold whose offer verifies and matches it", async () => {
    const { host, hold, hash } = await heldAndBooked();
    const v = await verifyHoldOffer(hold, host);
    expect(v.ok).toBe(true);
    if (v.ok)
      expect(v.value.offer).toMatchObject({
        sha256: hash,
        kid: "fake-2030-01",
        claims: { iss: "fake-barber" },
      });
  });

  it.each<[string, (h: Hold) => Hold, string]>([
    ["another total", (h) => ({ ...h, total: { amount: "2.26", currency: "CAD" } }), "/total"],
    ["another price", (h) => ({ ...h, price: { amount: "20.00", currency: "USD" } }), "/price"],
    ["another start", (h) => ({ ...h, start: "2030-01-08T10:30:00-05:00" }), "/start"],
    ["another end", (h) => ({ ...h, end: "2030-01-08T11:30:00-05:00" }), "/end"],
    ["another hold id", (h) => ({ ...h, hold_id: "h_other" }), "/hold_id"],
    ["another service", (h) => ({ ...h, service_id: "shave" }), "/service_id"],
    ["a place the offer lacks", (h) => ({ ...h, place: { name: "Park" } }), "/place"],
  ])("refuses a hold with %s than its offer", async (_label, edit, field) => {
    const { host, hold } = await heldAndBooked();
    const v = await verifyHoldOffer(edit(hold), host);
    expect(v.ok).toBe(false);
    if (!v.ok) expect(v.error).toMatchObject({ code: "offer_invalid", field });
  });

  it("treats the same moment in another offset, and 20 as 20.00, as the same terms (§2.1)", async () => {
    const { host, hold } = await heldAndBooked();
    const v = await verifyHoldOffer(
      { ...hold, start: "2030-01-08T15:00:00Z", price: { amount: "20", currency: "CAD" } },
      host,
    );
    expect(v.ok).toBe(true);
  });

  it("refuses an offer signed by a key discovery does not list, or from another host (§2.1)", async () => {
    const { host, hold } = await heldAndBooked();
    const stranger = generateEd25519KeyPair();
    const forged = await signOffer(claimsOf(hold.offer) as unknown as OfferClaims, {
      kid: "fake-2030-01",
      ...stranger,
    });
    if (!forged.ok) throw new Error("sign");
    const bad = await verifyHoldOffer({ ...hold, offer: forged.value }, host);
    expect(!bad.ok && bad.error).toMatchObject({ code: "offer_invalid", field: "/offer/signature" });

    const elsewhere: DiscoveredHost = { ...host, hostId: "other-host" };
    const other = await verifyHoldOffer(hold, elsewhere);
    expect(!other.ok && other.error.field).toBe("/offer/payload/iss");
  });

  it("refuses a validly signed offer with a term SchCP does not define (§5.2 closed claims)", async () => {
    const { ctx, host, hold } = await heldAndBooked();
    const claims = {
      ...claimsOf(hold.offer),
      slot: { start: hold.start, end: hold.end, cancellation_fee: "10.00" },
    };
    // signOffer would refuse to sign it, so sign the raw claims as a careless host would.
    const header = { alg: "EdDSA", typ: "schcp-offer+jwt", kid: ctx.host.key.kid };
    const signed = await signCompactJws(header, claims, ctx.host.key.privateKey);
    const v = await verifyHoldOffer({ ...hold, offer: signed }, host);
    expect(!v.ok && v.error).toMatchObject({
      code: "offer_invalid",
      field: "/offer/payload/slot/cancellation_fee",
    });
  });
});

describe("verifyBookingReceipt (SchCP §5.3, §9.1)", () => {
  it("returns the receipt's booking when everything matches the agent's own records", async () => {
    const { host, booking, hash, mandate } = await heldAndBooked();
    const v = await verifyBookingReceipt(booking, host, {
      offerSha256: hash,
      mandateJti: mandate.jti,
      retention: "P30D",
    });
    expect(v.ok).toBe(true);
    if (v.ok) {
      expect(v.value.booking).toEqual(booking.booking);
      expect(v.value.receipt.consent).toEqual({ approved: "limits", mandate: mandate.jti });
    }
  });

  it.each<[string, Record<string, unknown>, string]>([
    ["another offer hash", { offerSha256: "A".repeat(43) }, "/receipt/payload/offer_sha256"],
    ["another mandate", { mandateJti: "m-other" }, "/receipt/payload/consent/mandate"],
    ["another retention", { retention: "P365D" }, "/receipt/payload/retention"],
    ["another booking id", { bookingId: "b_other" }, "/receipt/payload/booking/booking_id"],
  ])("refuses a receipt naming %s than the agent used (§5.3)", async (_label, expect_, field) => {
    const { host, booking } = await heldAndBooked();
    const v = await verifyBookingReceipt(booking, host, expect_);
    expect(v.ok).toBe(false);
    if (!v.ok) expect(v.error).toMatchObject({ code: "receipt_invalid", field });
  });

  it("accepts retention written as another equal length (P30D is 30 days however written)", async () => {
    const { host, booking } = await heldAndBooked();
    expect((await verifyBookingReceipt(booking, host, { retention: "P4W2D" })).ok).toBe(true);
  });

  it("refuses an unsigned booking that differs from the receipt's", async () => {
    const { host, booking } = await heldAndBooked();
    const lying: BookingResponse = {
      ...booking,
      booking: { ...booking.booking, start: "2030-01-08T16:00:00-05:00" },
    };
    const v = await verifyBookingReceipt(lying, host);
    expect(!v.ok && v.error).toMatchObject({ code: "receipt_invalid", field: "/booking" });
  });

  it("refuses a receipt whose offer_sha256 is not its booking's, even when the host signed it (§5.3)", async () => {
    const { ctx, host, booking } = await heldAndBooked();
    const claims = { ...claimsOf(booking.receipt), offer_sha256: "B".repeat(43) };
    const header = { alg: "EdDSA", typ: "schcp-receipt+jwt", kid: ctx.host.key.kid };
    const forged = await signCompactJws(header, claims, ctx.host.key.privateKey);
    const v = await verifyBookingReceipt({ ...booking, receipt: forged }, host);
    expect(!v.ok && v.error.code).toBe("receipt_invalid");
    expect(!v.ok && v.error.field).toMatch(/^\/receipt\/payload/);
  });

  it("refuses a contract offer beside the booking that is not the one it stands on", async () => {
    const { host, booking, hold } = await heldAndBooked();
    const ok = await verifyBookingReceipt({ ...booking, offer: hold.offer }, host);
    expect(ok.ok).toBe(true);
    // A different signature: the last two characters changed (they may already read "AA").
    const tail = hold.offer.endsWith("AA") ? "QA" : "AA";
    const other = await verifyBookingReceipt(
      { ...booking, offer: `${hold.offer.slice(0, -2)}${tail}` },
      host,
    );
    expect(!other.ok && other.error).toMatchObject({ code: "receipt_invalid", field: "/offer" });
  });

  it("refuses a receipt that fails its schema or its signature", async () => {
    const { host, booking } = await heldAndBooked();
    const noReceipt = await verifyBookingReceipt({ booking: booking.booking }, host);
    expect(!noReceipt.ok && noReceipt.error.field).toBe("/receipt");
    const [h, p] = booking.receipt.split(".");
    const broken = await verifyBookingReceipt({ ...booking, receipt: `${h}.${p}.${"A".repeat(86)}` }, host);
    expect(!broken.ok && broken.error.field).toBe("/receipt/signature");
  });
});

describe("verifyChangeOffer (SchCP §5.7)", () => {
  async function changeOffered() {
    const base = await heldAndBooked();
    const id = base.booking.booking.booking_id;
    const r = await base.ctx.client.changeOffer(
      base.host,
      id,
      { sequence: 0, start: "2030-01-08T11:00:00-05:00" },
      { mandate: base.mandate.compact },
    );
    if (!r.ok) throw new Error(r.error.message);
    return { ...base, id, resp: r.value.body };
  }

  it("accepts a change of this booking that extends its current contract", async () => {
    const { host, id, hash, resp } = await changeOffered();
    const v = await verifyChangeOffer(resp, host, { bookingId: id, currentOfferSha256: hash });
    expect(v.ok).toBe(true);
    if (v.ok) expect(v.value.offer.claims).toMatchObject({ kind: "change", booking_id: id, prev: hash });
  });

  it.each<
    [
      string,
      (x: { id: string; hash: string }) => { bookingId: string; currentOfferSha256: string | null },
      string,
    ]
  >([
    [
      "another booking",
      (x) => ({ bookingId: "b_other", currentOfferSha256: x.hash }),
      "/proposal/offer/payload/booking_id",
    ],
    [
      "another contract",
      (x) => ({ bookingId: x.id, currentOfferSha256: "C".repeat(43) }),
      "/proposal/offer/payload/prev",
    ],
  ])("refuses a change offer for %s", async (_label, make, field) => {
    const { host, id, hash, resp } = await changeOffered();
    const v = await verifyChangeOffer(resp, host, make({ id, hash }));
    expect(!v.ok && v.error).toMatchObject({ code: "offer_invalid", field });
  });

  it("refuses a proposal whose start is not its offer's", async () => {
    const { host, id, hash, resp } = await changeOffered();
    const moved = { proposal: { ...resp.proposal, start: "2030-01-08T12:00:00-05:00" } };
    const v = await verifyChangeOffer(moved, host, { bookingId: id, currentOfferSha256: hash });
    expect(!v.ok && v.error.field).toBe("/proposal/start");
  });
});
