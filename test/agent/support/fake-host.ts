/**
 * A small SchCP operator and host written with Hono, for the SDK's unit tests (the real
 * gateway is exercised by test/e2e/). It verifies request signatures (§3.2) and mandates
 * (§3.3) with src/protocol, signs offers and receipts with a host key, and keeps holds and
 * bookings in memory: one host "fake-barber" with one service "trim" (PT30M, CAD 20.00 + HST
 * 13 % = 22.60), slots every 30 minutes 09:00–17:00 Toronto time.
 *
 * `misbehave` lets a test make the host answer what an agent MUST refuse: a route's JSON
 * rewritten, raw bytes instead of JSON, no SchCP-Version header, another discovery document.
 */
import { Hono } from "hono";
import type { Context } from "hono";
import { generateEd25519KeyPair, jwkThumbprint } from "../../../src/protocol/jose/index.js";
import { MemoryNonceMemory, verifySchcpRequest } from "../../../src/protocol/http-signatures/index.js";
import { parseStrictJson } from "../../../src/protocol/json/index.js";
import {
  checkMandateAction,
  receiptConsent,
  verifyMandate,
} from "../../../src/protocol/schcp/mandate/index.js";
import type { MandateChain } from "../../../src/protocol/schcp/mandate/index.js";
import { offerSha256, signOffer } from "../../../src/protocol/schcp/offer/index.js";
import type { HostSigningKey } from "../../../src/protocol/schcp/offer/index.js";
import { signReceipt } from "../../../src/protocol/schcp/receipt/index.js";
import { refusal } from "../../../src/protocol/schcp/refusals.js";
import type { RefusalCode } from "../../../src/protocol/schcp/refusals.js";
import type { Booking, BookingResponse, Hold, OfferClaims } from "../../../src/protocol/schcp/types.js";
import { validateSchcp } from "../../../src/protocol/schcp/validate.js";
import type { SchemaName } from "../../../src/protocol/schcp/validate.js";
import {
  formatInstant,
  formatWallClock,
  instantToWallClock,
  parseInstant,
} from "../../../src/protocol/time/index.js";

export const ORIGIN = "https://fake-gateway.example";
export const HOST_ID = "fake-barber";
export const DISCOVERY_URL = `${ORIGIN}/hosts/${HOST_ID}/scheduling.json`;
export const ENDPOINT = `${ORIGIN}/schcp/v0/${HOST_ID}`;
const TZ = "America/Toronto";
const SLOT_MS = 30 * 60_000;
const TTL_MS = 5 * 60_000;

export interface Misbehaviour {
  /** Rewrites the JSON a route answers with ("hold", "confirm", "booking", "cancel", "discovery", …). */
  rewrite?: (route: string, body: Record<string, unknown>) => unknown;
  /** Raw bytes for a route instead of its JSON (e.g. duplicate members). */
  raw?: (route: string) => string | undefined;
  omitVersion?: boolean;
}

interface HoldRecord {
  hold: Hold;
  claims: OfferClaims;
  principal: string;
  bookingId?: string;
}

interface BookingRecord {
  booking: Booking;
  offer: string;
  principal: string;
  mandateJti: string;
  chain: MandateChain;
  change?: { holdId: string; offer: string };
}

export interface FakeHost {
  readonly app: Hono;
  readonly key: HostSigningKey;
  readonly clock: { now(): number; set(ms: number): void; advance(ms: number): void };
  readonly misbehave: Misbehaviour;
  /** fetch for SchcpClient: every request goes to the app, never the network. */
  readonly fetch: (url: string, init: RequestInit) => Promise<Response>;
  readonly requests: { method: string; url: string; headers: Headers }[];
}

export function createFakeHost(startMs: number): FakeHost {
  let now = startMs;
  const clock = {
    now: () => now,
    set: (ms: number) => void (now = ms),
    advance: (ms: number) => void (now += ms),
  };
  const { privateKey, publicJwk } = generateEd25519KeyPair();
  const key: HostSigningKey = { kid: "fake-2030-01", privateKey, publicJwk };
  const nonces = new MemoryNonceMemory(() => now / 1000);
  const misbehave: Misbehaviour = {};
  const holds = new Map<string, HoldRecord>();
  const bookings = new Map<string, BookingRecord>();
  const taken = new Set<number>();
  const requests: FakeHost["requests"] = [];
  let seq = 0;
  const id = (prefix: string) => `${prefix}${String(++seq).padStart(6, "0")}`;

  const app = new Hono();
  const answer = (c: Context, route: string, status: number, body: Record<string, unknown>) => {
    if (misbehave.omitVersion !== true) c.header("SchCP-Version", "0.4");
    const raw = misbehave.raw?.(route);
    const text = raw ?? JSON.stringify(misbehave.rewrite?.(route, structuredClone(body)) ?? body);
    return c.body(text, status as 200, { "content-type": "application/json" });
  };
  const refuse = (c: Context, code: RefusalCode, opts: Parameters<typeof refusal>[1] = {}) => {
    const r = refusal(code, opts as never);
    return answer(c, "refusal", r.status ?? 400, r.body as unknown as Record<string, unknown>);
  };

  app.get("/.well-known/scheduling.json", (c) =>
    answer(c, "operator", 200, {
      schcp: "0.4",
      operator: { name: "Fake Gateway", domain: "fake-gateway.example" },
      hosts: [{ id: HOST_ID, discovery: DISCOVERY_URL, host_domain: null }],
    }),
  );
  app.get(`/hosts/${HOST_ID}/scheduling.json`, (c) =>
    answer(c, "discovery", 200, {
      schcp: "0.4",
      host: { id: HOST_ID, name: "Fake Barber", kind: "business", timezone: TZ },
      endpoint: ENDPOINT,
      operator: { domain: "fake-gateway.example" },
      keys: [{ ...publicJwk, kid: key.kid, use: "sig" }],
      services: [
        { id: "trim", name: "Trim", duration: "PT30M", price: { amount: "20.00", currency: "CAD" } },
      ],
      policies: { confirmation: "instant", closed_mandate: "never", retention: "P30D" },
    }),
  );

  /** §3.2 and §3.3 as a host does them; the body strictly parsed and schema-checked. */
  async function authenticate<N extends SchemaName>(c: Context, schema?: N) {
    const bytes = new Uint8Array(await c.req.arrayBuffer());
    const url = new URL(c.req.url);
    const verified = await verifySchcpRequest({
      method: c.req.method,
      targetUri: `${ORIGIN}${url.pathname}${url.search}`,
      headers: (name) => c.req.header(name),
      body: bytes,
      nowSec: Math.floor(now / 1000),
      nonces,
    });
    if (!verified.ok) return { fail: refuse(c, "BAD_SIGNATURE", { reason: verified.error.reason }) };
    let chain: MandateChain | undefined;
    if (verified.value.mandate !== undefined) {
      const m = await verifyMandate(verified.value.mandate, {
        hostId: HOST_ID,
        nowSec: Math.floor(now / 1000),
        requestKeyThumbprint: verified.value.keyid,
      });
      if (!m.ok)
        return {
          fail: refuse(c, m.error.code, { reason: m.error.reason as never, message: m.error.message }),
        };
      chain = m.value;
    }
    let body: unknown;
    if (schema !== undefined) {
      const json = parseStrictJson(bytes, "");
      if (!json.ok) return { fail: refuse(c, "INVALID_REQUEST", { message: json.error.message }) };
      const valid = validateSchcp(schema, json.value);
      if (!valid.ok) return { fail: refuse(c, "INVALID_REQUEST", { message: valid.error.message }) };
      body = valid.value;
    }
    return { chain, body, agentKey: verified.value.keyid };
  }

  async function allowed(
    c: Context,
    chain: MandateChain | undefined,
    action: Parameters<typeof checkMandateAction>[1],
  ) {
    if (chain === undefined) return refuse(c, "MANDATE_INVALID", { message: "a mandate is required" });
    const r = await checkMandateAction(chain, action, { counter: { active: () => Promise.resolve(0) } });
    if (!r.ok) return refuse(c, r.error.code, { reason: r.error.reason as never, message: r.error.message });
    return undefined;
  }

  const slotOk = (ms: number) => {
    const w = instantToWallClock(ms, TZ);
    const minutes = w.hour * 60 + w.minute;
    return ms % SLOT_MS === 0 && minutes >= 9 * 60 && minutes + 30 <= 17 * 60;
  };

  app.post(`/schcp/v0/${HOST_ID}/availability`, async (c) => {
    const a = await authenticate(c, "AvailabilityRequest");
    if ("fail" in a) return a.fail;
    const req = a.body as { window: { start: string; end: string }; limit?: number };
    const from = mustInstant(req.window.start);
    const to = mustInstant(req.window.end);
    const slots = [];
    for (let t = Math.ceil(from / SLOT_MS) * SLOT_MS; t + SLOT_MS <= to; t += SLOT_MS) {
      if (slotOk(t) && !taken.has(t))
        slots.push({ start: formatInstant(t, TZ), end: formatInstant(t + SLOT_MS, TZ), ...money() });
      if (slots.length >= (req.limit ?? 20)) break;
    }
    return answer(c, "availability", 200, {
      service_id: "trim",
      timezone: TZ,
      slots,
      as_of: formatInstant(now),
    });
  });

  app.post(`/schcp/v0/${HOST_ID}/holds`, async (c) => {
    const a = await authenticate(c, "HoldRequest");
    if ("fail" in a) return a.fail;
    const req = a.body as { start: string; service_id: string };
    if (req.service_id !== "trim") return refuse(c, "NOT_FOUND", { message: "no such service" });
    const start = mustInstant(req.start);
    const denied = await allowed(c, a.chain, {
      kind: "hold",
      serviceId: "trim",
      start,
      end: start + SLOT_MS,
      total: { minor: 2260, currency: "CAD" },
    });
    if (denied) return denied;
    if (!slotOk(start) || taken.has(start)) {
      return refuse(c, "SLOT_UNAVAILABLE", {
        details: {
          alternatives: [
            {
              start: formatInstant(start + SLOT_MS, TZ),
              end: formatInstant(start + 2 * SLOT_MS, TZ),
              ...money(),
            },
          ],
        },
      });
    }
    taken.add(start);
    const holdId = id("h_");
    const claims = offerClaims(start, { kind: "booking", hold_id: holdId });
    const offer = await mustSign(claims);
    const hold: Hold = {
      hold_id: holdId,
      status: "held",
      service_id: "trim",
      start: claims.slot.start,
      end: claims.slot.end!,
      expires_at: formatInstant(now + TTL_MS),
      ...money(),
      offer,
    };
    holds.set(holdId, { hold, claims, principal: a.chain!.principal });
    return answer(c, "hold", 201, { ...hold });
  });

  app.get(`/schcp/v0/${HOST_ID}/holds/:id`, async (c) => {
    const a = await authenticate(c);
    if ("fail" in a) return a.fail;
    const rec = holds.get(c.req.param("id"));
    if (rec === undefined) return refuse(c, "NOT_FOUND");
    return answer(c, "hold", 200, { ...rec.hold });
  });

  app.delete(`/schcp/v0/${HOST_ID}/holds/:id`, async (c) => {
    const a = await authenticate(c);
    if ("fail" in a) return a.fail;
    const rec = holds.get(c.req.param("id"));
    if (rec === undefined) return refuse(c, "NOT_FOUND");
    if (rec.hold.status === "held") {
      rec.hold = { ...rec.hold, status: "released" };
      taken.delete(mustInstant(rec.hold.start));
    }
    return answer(c, "hold", 200, { ...rec.hold });
  });

  app.post(`/schcp/v0/${HOST_ID}/holds/:id/confirm`, async (c) => {
    const a = await authenticate(c, "ConfirmRequest");
    if ("fail" in a) return a.fail;
    const rec = holds.get(c.req.param("id"));
    if (rec === undefined || rec.hold.status !== "held") return refuse(c, "NOT_FOUND");
    const req = a.body as { offer_sha256: string };
    const hash = offerSha256(rec.hold.offer);
    if (req.offer_sha256 !== hash) return refuse(c, "CONTRACT_MISMATCH", { details: { offer_sha256: hash } });
    const start = mustInstant(rec.hold.start);
    const denied = await allowed(c, a.chain, {
      kind: "book",
      serviceId: "trim",
      start,
      end: start + SLOT_MS,
      total: { minor: 2260, currency: "CAD" },
      offerSha256: hash,
    });
    if (denied) return denied;
    rec.hold = { ...rec.hold, status: "confirmed" };
    const bookingId = id("b_");
    const booking = bookingOf(bookingId, rec.claims, hash, 0, "confirmed");
    const record: BookingRecord = {
      booking,
      offer: rec.hold.offer,
      principal: rec.principal,
      mandateJti: a.chain!.root.claims.jti,
      chain: a.chain!,
    };
    bookings.set(bookingId, record);
    return answer(c, "confirm", 201, await responseOf(record));
  });

  app.get(`/schcp/v0/${HOST_ID}/bookings/:id`, async (c) => {
    const a = await authenticate(c);
    if ("fail" in a) return a.fail;
    const rec = bookings.get(c.req.param("id"));
    if (rec === undefined) return refuse(c, "NOT_FOUND");
    return answer(c, "booking", 200, await responseOf(rec));
  });

  app.post(`/schcp/v0/${HOST_ID}/bookings/:id/cancel`, async (c) => {
    const a = await authenticate(c, "CancelRequest");
    if ("fail" in a) return a.fail;
    const rec = bookings.get(c.req.param("id"));
    if (rec === undefined) return refuse(c, "NOT_FOUND");
    const b = rec.booking;
    const denied = await allowed(c, a.chain, {
      kind: "cancel",
      serviceId: "trim",
      start: mustInstant(b.start),
      end: mustInstant(b.end!),
      bookingId: b.booking_id,
    });
    if (denied) return denied;
    if (b.status !== "cancelled") {
      taken.delete(mustInstant(b.start));
      rec.booking = {
        ...b,
        status: "cancelled",
        sequence: b.sequence + 1,
        event: { ...b.event, status: "cancelled", sequence: b.sequence + 1 },
      };
      rec.chain = a.chain!;
    }
    return answer(c, "cancel", 200, await responseOf(rec));
  });

  app.post(`/schcp/v0/${HOST_ID}/bookings/:id/change-offer`, async (c) => {
    const a = await authenticate(c, "ChangeOfferRequest");
    if ("fail" in a) return a.fail;
    const rec = bookings.get(c.req.param("id"));
    if (rec === undefined) return refuse(c, "NOT_FOUND");
    const req = a.body as { sequence: number; start: string };
    if (req.sequence !== rec.booking.sequence) return refuse(c, "STALE_SEQUENCE");
    const start = mustInstant(req.start);
    const denied = await allowed(c, a.chain, {
      kind: "change_offer",
      serviceId: "trim",
      start,
      end: start + SLOT_MS,
      bookingId: rec.booking.booking_id,
    });
    if (denied) return denied;
    if (!slotOk(start) || taken.has(start)) return refuse(c, "SLOT_UNAVAILABLE");
    taken.add(start);
    const claims = offerClaims(start, {
      kind: "change",
      booking_id: rec.booking.booking_id,
      prev: rec.booking.offer_sha256,
    });
    const offer = await mustSign(claims);
    const holdId = id("p_");
    rec.change = { holdId, offer };
    return answer(c, "change-offer", 201, {
      proposal: {
        proposal_id: holdId,
        by: "guest",
        start: claims.slot.start,
        end: claims.slot.end,
        expires_at: formatInstant(now + TTL_MS),
        offer,
      },
    });
  });

  app.post(`/schcp/v0/${HOST_ID}/bookings/:id/reschedule`, async (c) => {
    const a = await authenticate(c, "RescheduleRequest");
    if ("fail" in a) return a.fail;
    const rec = bookings.get(c.req.param("id"));
    if (rec === undefined) return refuse(c, "NOT_FOUND");
    const req = a.body as { sequence: number; offer_sha256: string };
    if (req.sequence !== rec.booking.sequence) return refuse(c, "STALE_SEQUENCE");
    if (rec.change === undefined || offerSha256(rec.change.offer) !== req.offer_sha256)
      return refuse(c, "CONTRACT_MISMATCH");
    const claims = parseClaims(rec.change.offer);
    const start = mustInstant(claims.slot.start);
    const denied = await allowed(c, a.chain, {
      kind: "reschedule",
      serviceId: "trim",
      start,
      end: start + SLOT_MS,
      bookingId: rec.booking.booking_id,
      offerSha256: req.offer_sha256,
    });
    if (denied) return denied;
    taken.delete(mustInstant(rec.booking.start));
    const seqNo = rec.booking.sequence + 1;
    rec.booking = bookingOf(rec.booking.booking_id, claims, req.offer_sha256, seqNo, "confirmed");
    rec.offer = rec.change.offer;
    rec.chain = a.chain!;
    delete rec.change;
    return answer(c, "reschedule", 200, await responseOf(rec));
  });

  app.notFound((c) => refuse(c, "NOT_FOUND"));

  function offerClaims(start: number, extra: Partial<OfferClaims>): OfferClaims {
    return {
      v: "0.4",
      kind: "booking",
      iss: HOST_ID,
      iat: Math.floor(now / 1000),
      exp: Math.floor((now + TTL_MS) / 1000),
      host: { name: "Fake Barber", tz: TZ },
      service: { id: "trim", name: "Trim" },
      slot: { start: formatInstant(start, TZ), end: formatInstant(start + SLOT_MS, TZ) },
      ...money(),
      lines: [
        { kind: "service", label: "Trim", amount: { amount: "20.00", currency: "CAD" } },
        { kind: "tax", label: "HST 13%", amount: { amount: "2.60", currency: "CAD" } },
      ],
      retention: "P30D",
      ...extra,
    };
  }

  async function mustSign(claims: OfferClaims): Promise<string> {
    const signed = await signOffer(claims, key);
    if (!signed.ok) throw new Error(`fake host signed a bad offer: ${signed.error.message}`);
    return signed.value;
  }

  function bookingOf(
    bookingId: string,
    claims: OfferClaims,
    hash: string,
    sequence: number,
    status: "confirmed",
  ): Booking {
    const start = mustInstant(claims.slot.start);
    return {
      booking_id: bookingId,
      status,
      sequence,
      service_id: "trim",
      start: claims.slot.start,
      end: claims.slot.end!,
      ...money(),
      lines: claims.lines!,
      offer_sha256: hash,
      retention: claims.retention,
      event: {
        "@type": "Event",
        uid: `${bookingId}@fake-gateway.example`,
        start: formatWallClock(instantToWallClock(start, TZ)),
        timeZone: TZ,
        duration: "PT30M",
        title: "Trim — Fake Barber",
        sequence,
        updated: formatInstant(now),
        status,
      },
    };
  }

  async function responseOf(rec: BookingRecord): Promise<BookingResponse & Record<string, unknown>> {
    const receipt = await signReceipt(
      {
        v: "0.4",
        iss: HOST_ID,
        iat: Math.floor(now / 1000),
        booking: rec.booking,
        offer_sha256: rec.booking.offer_sha256!,
        retention: rec.booking.retention!,
        consent: receiptConsent(rec.chain, rec.booking.offer_sha256!),
      },
      key,
    );
    if (!receipt.ok) throw new Error(`fake host signed a bad receipt: ${receipt.error.message}`);
    return { booking: rec.booking, receipt: receipt.value };
  }

  const fetchFn = (url: string, init: RequestInit) => {
    requests.push({ method: init.method ?? "GET", url, headers: new Headers(init.headers) });
    return Promise.resolve(app.request(url, init));
  };
  return { app, key, clock, misbehave, fetch: fetchFn, requests };
}

function money() {
  return { price: { amount: "20.00", currency: "CAD" }, total: { amount: "22.60", currency: "CAD" } };
}

function mustInstant(text: string): number {
  const r = parseInstant(text, "");
  if (!r.ok) throw new Error(`fake host: bad instant ${text}`);
  return r.value.epochMs;
}

function parseClaims(compact: string): OfferClaims {
  const payload = compact.split(".")[1]!;
  return JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as OfferClaims;
}

export const thumbprintOf = jwkThumbprint;
