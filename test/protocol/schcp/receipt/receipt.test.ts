import { describe, expect, it } from "vitest";
import { signCompactJws } from "../../../../src/protocol/jose/jws.js";
import { offerSha256 } from "../../../../src/protocol/schcp/offer/hash.js";
import type { HostSigningKey } from "../../../../src/protocol/schcp/offer/host-key.js";
import { signOffer } from "../../../../src/protocol/schcp/offer/sign.js";
import { signReceipt } from "../../../../src/protocol/schcp/receipt/sign.js";
import { verifyReceipt } from "../../../../src/protocol/schcp/receipt/verify.js";
import type { ReceiptExpectations } from "../../../../src/protocol/schcp/receipt/verify.js";
import type { OfferClaims, ReceiptClaims } from "../../../../src/protocol/schcp/types.js";
import {
  MAPLE_CHANGE,
  MAPLE_OFFER,
  copy,
  discoveryKey,
  fixedHostKey,
  freshHostKey,
} from "../offer/support.js";

const host = fixedHostKey("msa-2026-10");
const keys = [discoveryKey(host)];

async function signedOffer(claims: OfferClaims): Promise<string> {
  const r = await signOffer(claims, host);
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
}

const offer = await signedOffer(MAPLE_OFFER);
const OFFER_HASH = offerSha256(offer);
const change = await signedOffer({ ...copy(MAPLE_CHANGE), prev: OFFER_HASH });
const CHANGE_HASH = offerSha256(change);

/** The receipt of confirming MAPLE_OFFER under an open mandate (§5.3). */
function receiptClaims(): ReceiptClaims {
  return {
    v: "0.4",
    iss: "maple-street-auto",
    iat: 1792000100,
    booking: {
      booking_id: "b_01",
      status: "confirmed",
      sequence: 0,
      service_id: "oil-change",
      start: "2026-10-15T13:00:00-04:00",
      end: "2026-10-15T13:45:00-04:00",
      price: copy(MAPLE_OFFER.price)!,
      total: copy(MAPLE_OFFER.total)!,
      lines: copy(MAPLE_OFFER.lines)!,
      offer_sha256: OFFER_HASH,
      retention: "P365D",
      event: {
        "@type": "Event",
        uid: "b_01@maplestreetauto.example",
        start: "2026-10-15T13:00:00",
        timeZone: "America/Toronto",
        duration: "PT45M",
        title: "Synthetic oil change — Maple Street Auto",
        sequence: 0,
        updated: "2026-10-13T13:00:00Z",
        status: "confirmed",
      },
    },
    offer_sha256: OFFER_HASH,
    retention: "P365D",
    consent: { approved: "limits", mandate: "m-01J9Z", mode: "human_present" },
  };
}

/** A guest's move accepted at a host_approval host, waiting for its yes (§5.7 step 3). */
function awaitingMove(expiresAt: string): ReceiptClaims {
  const c = receiptClaims();
  c.booking.proposal = {
    proposal_id: "p_01",
    by: "guest",
    start: "2026-10-15T14:00:00-04:00",
    end: "2026-10-15T14:45:00-04:00",
    expires_at: expiresAt,
    offer: change,
    awaiting_host: true,
    consent: { approved: "limits", mandate: "m-01J9Z" },
  };
  return c;
}

const EXPECT: ReceiptExpectations = {
  expectedIss: "maple-street-auto",
  offerSha256: OFFER_HASH,
  mandateJti: "m-01J9Z",
  retention: "P365D",
  bookingId: "b_01",
};

async function signed(claims: ReceiptClaims): Promise<string> {
  const r = await signReceipt(claims, host);
  if (!r.ok) throw new Error(`${r.error.field}: ${r.error.message}`);
  return r.value;
}

/** Bypasses signReceipt's checks: what a careless or hostile host could send. */
function signRaw(claims: object, key: HostSigningKey = host, typ = "schcp-receipt+jwt"): Promise<string> {
  return signCompactJws({ typ, kid: key.kid }, { ...claims }, key.privateKey);
}

async function refusedField(compact: string, expect_: ReceiptExpectations = EXPECT): Promise<string> {
  const r = await verifyReceipt(compact, keys, expect_);
  if (r.ok) throw new Error("expected the receipt to be refused");
  expect(r.error.code).toBe("receipt_invalid");
  return r.error.field;
}

describe("signReceipt / verifyReceipt round trip (SchCP §5.3)", () => {
  it("verifies what it signed, with every expectation the agent has", async () => {
    const compact = await signed(receiptClaims());
    const header = JSON.parse(Buffer.from(compact.split(".")[0] ?? "", "base64url").toString()) as unknown;
    expect(header).toEqual({ alg: "EdDSA", typ: "schcp-receipt+jwt", kid: "msa-2026-10" });
    expect(await verifyReceipt(compact, keys, EXPECT)).toEqual({
      ok: true,
      value: { claims: receiptClaims(), compact, kid: "msa-2026-10" },
    });
  });

  it("signs identical claims to identical bytes", async () => {
    expect(await signed(receiptClaims())).toBe(await signed(receiptClaims()));
  });

  it("accepts a booking made outside SchCP: no contract, no consent (§5.3)", async () => {
    const c = receiptClaims();
    c.booking.offer_sha256 = null;
    delete c.offer_sha256;
    delete c.consent;
    const r = await verifyReceipt(await signed(c), keys, { offerSha256: null });
    expect(r.ok).toBe(true);
  });

  it("accepts a retention in an equivalent form (P52W1D is 365 days, §2.1)", async () => {
    const c = receiptClaims();
    c.retention = "P52W1D";
    expect((await verifyReceipt(await signed(c), keys, EXPECT)).ok).toBe(true);
  });

  it("accepts a move waiting for the host that lapses by the booking's start (§5.7)", async () => {
    const compact = await signed(awaitingMove("2026-10-15T17:00:00Z")); // exactly the start
    expect((await verifyReceipt(compact, keys, { ...EXPECT, changeOfferSha256: CHANGE_HASH })).ok).toBe(true);
  });
});

describe("signReceipt refuses to sign what an agent must refuse", () => {
  it("a receipt whose hash differs from its booking's", async () => {
    const c = receiptClaims();
    c.booking.offer_sha256 = CHANGE_HASH;
    expect(await signReceipt(c, host)).toMatchObject({
      ok: false,
      error: { code: "receipt_invalid", field: "/offer_sha256" },
    });
  });

  it("a move waiting past the booking's start", async () => {
    const r = await signReceipt(awaitingMove("2026-10-15T17:00:01Z"), host);
    expect(r).toMatchObject({ ok: false, error: { field: "/booking/proposal/expires_at" } });
  });
});

describe("verifyReceipt refusals (SchCP §5.3, §5.7, §9.1)", () => {
  it("refuses a receipt whose offer_sha256 differs from its booking's", async () => {
    const c = receiptClaims();
    c.booking.offer_sha256 = CHANGE_HASH;
    expect(await refusedField(await signRaw(c))).toBe("/payload/offer_sha256");
  });

  it("refuses a receipt with a contract hash whose booking has none", async () => {
    const c = receiptClaims();
    c.booking.offer_sha256 = null;
    expect(await refusedField(await signRaw(c))).toBe("/payload/offer_sha256");
  });

  it("refuses a receipt naming another mandate than the one used", async () => {
    const c = receiptClaims();
    c.consent = { approved: "limits", mandate: "m-someone-else" };
    expect(await refusedField(await signed(c))).toBe("/payload/consent/mandate");
  });

  it("refuses a receipt with no consent when the agent used a mandate", async () => {
    const c = receiptClaims();
    c.booking.offer_sha256 = null;
    delete c.offer_sha256;
    delete c.consent;
    expect(await refusedField(await signed(c), { mandateJti: "m-01J9Z" })).toBe("/payload/consent/mandate");
  });

  it("refuses a retention other than the contract's", async () => {
    const c = receiptClaims();
    c.retention = "P30D";
    expect(await refusedField(await signed(c))).toBe("/payload/retention");
  });

  it("refuses a receipt for another contract than the one just accepted", async () => {
    expect(await refusedField(await signed(receiptClaims()), { ...EXPECT, offerSha256: CHANGE_HASH })).toBe(
      "/payload/offer_sha256",
    );
  });

  it("refuses a contract-less receipt when the agent accepted an offer", async () => {
    const c = receiptClaims();
    c.booking.offer_sha256 = null;
    delete c.offer_sha256;
    delete c.consent;
    expect(await refusedField(await signed(c), { offerSha256: OFFER_HASH })).toBe("/payload/offer_sha256");
  });

  it("refuses a move waiting for the host that is held past the booking's start (§5.7)", async () => {
    const compact = await signRaw(awaitingMove("2026-10-15T17:00:01Z"));
    expect(await refusedField(compact)).toBe("/payload/booking/proposal/expires_at");
  });

  it("refuses a move waiting for the host that is not the change offer the agent accepted (§5.7)", async () => {
    const compact = await signed(awaitingMove("2026-10-15T16:00:00Z"));
    expect(await refusedField(compact, { ...EXPECT, changeOfferSha256: OFFER_HASH })).toBe(
      "/payload/booking/proposal/offer",
    );
  });

  it("refuses another booking and another host", async () => {
    const compact = await signed(receiptClaims());
    expect(await refusedField(compact, { bookingId: "b_02" })).toBe("/payload/booking/booking_id");
    expect(await refusedField(compact, { expectedIss: "fades-on-queen" })).toBe("/payload/iss");
  });

  it("refuses an unknown member at the top, in the booking and in its event (closed, §5.3)", async () => {
    const top = { ...receiptClaims(), refund: "10.00" };
    expect(await refusedField(await signRaw(top))).toBe("/payload/refund");
    const inBooking = receiptClaims();
    (inBooking.booking as unknown as Record<string, unknown>).no_show_fee = "25.00";
    expect(await refusedField(await signRaw(inBooking))).toBe("/payload/booking/no_show_fee");
    const inEvent = receiptClaims();
    (inEvent.booking.event as unknown as Record<string, unknown>).alerts = {};
    expect(await refusedField(await signRaw(inEvent))).toBe("/payload/booking/event/alerts");
  });

  it("refuses an offer's typ, an unknown kid and a key from elsewhere", async () => {
    expect(await refusedField(await signRaw(receiptClaims(), host, "schcp-offer+jwt"))).toBe("/header/typ");
    expect(await refusedField(await signRaw(receiptClaims(), fixedHostKey("nope")))).toBe("/header/kid");
    expect(await refusedField(await signRaw(receiptClaims(), freshHostKey(host.kid)))).toBe("/signature");
  });
});
