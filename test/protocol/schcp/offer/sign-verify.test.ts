import { describe, expect, it } from "vitest";
import { encodeBase64Url } from "../../../../src/protocol/json/base64.js";
import { signCompactJws } from "../../../../src/protocol/jose/jws.js";
import { offerSha256 } from "../../../../src/protocol/schcp/offer/hash.js";
import type { HostSigningKey } from "../../../../src/protocol/schcp/offer/host-key.js";
import { signOffer } from "../../../../src/protocol/schcp/offer/sign.js";
import { verifyOffer } from "../../../../src/protocol/schcp/offer/verify.js";
import type { OfferClaims } from "../../../../src/protocol/schcp/types.js";
import {
  MAPLE_CHANGE,
  MAPLE_OFFER,
  PLAYDATE_OFFER,
  copy,
  discoveryKey,
  fixedHostKey,
  freshHostKey,
} from "./support.js";

const host = fixedHostKey("msa-2026-10");
const keys = [discoveryKey(freshHostKey("msa-2025-10")), discoveryKey(host)];

/** Signs anything, bypassing signOffer's checks: what a careless or hostile host could send. */
function signRaw(
  payload: object,
  key: HostSigningKey = host,
  header: Record<string, unknown> = {},
): Promise<string> {
  return signCompactJws({ typ: "schcp-offer+jwt", kid: key.kid, ...header }, { ...payload }, key.privateKey);
}

async function signed(claims: OfferClaims): Promise<string> {
  const r = await signOffer(claims, host);
  if (!r.ok) throw new Error(`test offer did not sign: ${r.error.field} ${r.error.message}`);
  return r.value;
}

async function refusal(compact: unknown, opts: { expectedIss?: string } = {}) {
  const r = await verifyOffer(compact, keys, opts);
  if (r.ok) throw new Error("expected the offer to be refused");
  expect(r.error.code).toBe("offer_invalid");
  return r.error;
}

describe("signOffer / verifyOffer round trip (SchCP §5.2)", () => {
  it("verifies what it signed, with the header the spec names", async () => {
    const compact = await signed(MAPLE_OFFER);
    const header = JSON.parse(Buffer.from(compact.split(".")[0] ?? "", "base64url").toString()) as unknown;
    expect(header).toEqual({ alg: "EdDSA", typ: "schcp-offer+jwt", kid: "msa-2026-10" });
    const r = await verifyOffer(compact, keys, { expectedIss: "maple-street-auto" });
    expect(r).toEqual({
      ok: true,
      value: {
        claims: MAPLE_OFFER,
        compact,
        sha256: offerSha256(compact),
        kid: "msa-2026-10",
        total: { minor: 8927, currency: "CAD" },
      },
    });
  });

  it("signs identical claims to identical bytes (Ed25519 is deterministic), so the hash is stable", async () => {
    const a = await signed(MAPLE_OFFER);
    const b = await signed(copy(MAPLE_OFFER));
    expect(b).toBe(a);
    // Pinned: a change here means the signed bytes of an offer changed.
    expect(offerSha256(a)).toBe(PINNED_MAPLE_SHA256);
  });

  it("round-trips the open-ended, unpriced playdate (total null)", async () => {
    const r = await verifyOffer(await signed(PLAYDATE_OFFER), keys);
    expect(r.ok && r.value.total).toBe(null);
  });

  it("accepts an extension of an unpriced booking: total and lines, no price (§5.8)", async () => {
    const ext: OfferClaims = {
      ...copy(MAPLE_CHANGE),
      total: { amount: "30.00", currency: "CAD" },
      lines: [{ kind: "fee", label: "Another 30 minutes", amount: { amount: "30.00", currency: "CAD" } }],
    };
    delete ext.price;
    const r = await verifyOffer(await signed(ext), keys);
    expect(r.ok && r.value.total).toEqual({ minor: 3000, currency: "CAD" });
  });

  it("does not refuse an offer whose own exp has passed: the hold's expiry governs", async () => {
    const r = await verifyOffer(await signed(MAPLE_OFFER), keys, { nowSec: MAPLE_OFFER.exp + 3600 });
    expect(r.ok).toBe(true);
  });
});

describe("signOffer refuses to sign an invalid offer (a host never signs one)", () => {
  it.each<[string, (o: OfferClaims) => void, string]>([
    [
      "lines one minor unit off",
      (o) => {
        o.total = { amount: "89.28", currency: "CAD" };
      },
      "/total",
    ],
    [
      "an unknown term",
      (o) => {
        (o as unknown as Record<string, unknown>).cancellation_fee = "25.00";
      },
      "/cancellation_fee",
    ],
    [
      "open_end with an end",
      (o) => {
        o.open_end = true;
      },
      "/slot/end",
    ],
    [
      "a slot that ends before it starts",
      (o) => {
        o.slot.end = "2026-10-15T12:00:00-04:00";
      },
      "/slot/end",
    ],
  ])("%s", async (_name, edit, field) => {
    const o = copy(MAPLE_OFFER);
    edit(o);
    const r = await signOffer(o, host);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatchObject({ code: "offer_invalid", field });
  });
});

describe("verifyOffer refusals (SchCP §2.1 keys, §5.2 agent MUSTs)", () => {
  it("refuses a kid no discovery key has", async () => {
    expect((await refusal(await signRaw(MAPLE_OFFER, fixedHostKey("other-kid")))).field).toBe("/header/kid");
  });

  it("refuses a JWS without a kid", async () => {
    const compact = await signCompactJws({ typ: "schcp-offer+jwt" }, { ...MAPLE_OFFER }, host.privateKey);
    expect((await refusal(compact)).field).toBe("/header/kid");
  });

  it("refuses a valid signature by a key not in discovery, even one carried in the header", async () => {
    const stranger = freshHostKey("msa-2026-10"); // same kid, different key
    expect((await refusal(await signRaw(MAPLE_OFFER, stranger))).field).toBe("/signature");
    const withJwk = await signRaw(MAPLE_OFFER, stranger, { jwk: stranger.publicJwk });
    expect((await refusal(withJwk)).field).toBe("/signature");
  });

  it("refuses a kid listed twice in discovery", async () => {
    const r = await verifyOffer(await signed(MAPLE_OFFER), [...keys, discoveryKey(host)]);
    expect(!r.ok && r.error.field).toBe("/header/kid");
  });

  it.each(["JWT", "schcp-receipt+jwt", "schcp-offer+JWT", undefined])("refuses typ %s", async (typ) => {
    expect((await refusal(await signRaw(MAPLE_OFFER, host, { typ }))).field).toBe("/header/typ");
  });

  it("refuses a tampered payload", async () => {
    const [h, , s] = (await signed(MAPLE_OFFER)).split(".");
    const cheaper = { ...copy(MAPLE_OFFER), total: { amount: "9.27", currency: "CAD" } };
    const p = encodeBase64Url(new TextEncoder().encode(JSON.stringify(cheaper)));
    expect((await refusal(`${h}.${p}.${s}`)).field).toBe("/signature");
  });

  it.each([123, null, "not.a.jws", "a.b"])("refuses %j as not a compact JWS", async (value) => {
    await refusal(value);
  });

  it("refuses alg none", async () => {
    const enc = (v: object) => encodeBase64Url(new TextEncoder().encode(JSON.stringify(v)));
    const sig = encodeBase64Url(new Uint8Array(64));
    const compact = `${enc({ alg: "none", typ: "schcp-offer+jwt", kid: host.kid })}.${enc(MAPLE_OFFER)}.${sig}`;
    expect((await refusal(compact)).field).toBe("/header/alg");
  });

  const unknownTerm = (path: (o: Record<string, unknown>) => Record<string, unknown>) => (o: OfferClaims) => {
    path(o as unknown as Record<string, unknown>).cancellation_fee = { amount: "25.00", currency: "CAD" };
  };
  const claimRefusals: [string, (o: OfferClaims) => void, string][] = [
    ["an unknown member at the top", unknownTerm((o) => o), "/payload/cancellation_fee"],
    [
      "an unknown member inside slot",
      unknownTerm((o) => o.slot as Record<string, unknown>),
      "/payload/slot/cancellation_fee",
    ],
    [
      "an unknown member inside host",
      unknownTerm((o) => o.host as Record<string, unknown>),
      "/payload/host/cancellation_fee",
    ],
    [
      "an unknown member inside service",
      unknownTerm((o) => o.service as Record<string, unknown>),
      "/payload/service/cancellation_fee",
    ],
    [
      "an unknown member inside lines[1]",
      unknownTerm((o) => (o.lines as Record<string, unknown>[])[1]!),
      "/payload/lines/1/cancellation_fee",
    ],
    [
      "lines that miss the total by 1 minor unit",
      (o) => {
        o.lines![1]!.amount.amount = "10.26";
      },
      "/payload/total",
    ],
    [
      "a line in another currency",
      (o) => {
        o.lines![1]!.amount.currency = "USD";
      },
      "/payload/lines/1/amount/currency",
    ],
    [
      "79.001 CAD",
      (o) => {
        o.price = { amount: "79.001", currency: "CAD" };
      },
      "/payload/price/amount",
    ],
    ["a price without a total", (o) => void delete o.total, "/payload/total"],
    [
      "lines alone",
      (o) => {
        delete o.price;
        delete o.total;
      },
      "/payload/total",
    ],
    ["a total without a price on a booking offer", (o) => void delete o.price, "/payload/price"],
    [
      "open_end with slot.end (§4.2)",
      (o) => {
        o.open_end = true;
      },
      "/payload/slot/end",
    ],
    ["no end and no open_end", (o) => void delete o.slot.end, "/payload/slot/end"],
    [
      "a cancellation-fee line kind",
      (o) => {
        (o.lines![1] as { kind: string }).kind = "cancellation_fee";
      },
      "/payload/lines/1/kind",
    ],
    [
      "a host tz that is not an IANA zone",
      (o) => {
        o.host!.tz = "Mars/Olympus_Mons";
      },
      "/payload/host/tz",
    ],
  ];
  it.each(claimRefusals)("refuses a validly signed offer with %s", async (_name, edit, field) => {
    const o = copy(MAPLE_OFFER);
    edit(o);
    expect((await refusal(await signRaw(o))).field).toBe(field);
  });

  it("refuses a change offer without prev (§5.7)", async () => {
    const o = copy(MAPLE_CHANGE);
    delete o.prev;
    expect((await refusal(await signRaw(o))).field).toBe("/payload/prev");
  });

  it("refuses a change offer without booking_id (§5.7)", async () => {
    const o = copy(MAPLE_CHANGE);
    delete o.booking_id;
    expect((await refusal(await signRaw(o))).field).toBe("/payload/booking_id");
  });

  it("accepts a change offer whose prev is null: the booking was made outside SchCP (§5.3)", async () => {
    const r = await verifyOffer(await signed({ ...copy(MAPLE_CHANGE), prev: null }), keys);
    expect(r.ok).toBe(true);
  });

  it("refuses an offer from another host than the one discovered", async () => {
    const e = await refusal(await signed(MAPLE_OFFER), { expectedIss: "fades-on-queen" });
    expect(e.field).toBe("/payload/iss");
  });
});

const PINNED_MAPLE_SHA256 = "ptGfAxYWQupzJvsAAIAXs8IGgKbwEJoVJ9mJ-ZWZx_4";
