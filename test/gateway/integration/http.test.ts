/**
 * The gateway over real HTTP on loopback with the real booking service, the embedded default
 * hosts and the in-memory store: the edge's guarantees end to end (SchCP §3.1, §3.2, §3.3,
 * §5, §7.2, §8, §9.1, §9.2), and host keys persisted across a restart (§2.1).
 */
import { request as httpRequest } from "node:http";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { OutboundRequest, PublicFetch } from "../../../src/jobs/outbound/public-fetch.js";
import { MemoryNonceMemory, signSchcpRequest } from "../../../src/protocol/http-signatures/index.js";
import { verifyHostWebhook } from "../../../src/protocol/http-signatures/host-webhook.js";
import { offerSha256, verifyOffer } from "../../../src/protocol/schcp/offer/index.js";
import type { Jwk } from "../../../src/protocol/schcp/types.js";
import { validateSchcp } from "../../../src/protocol/schcp/validate.js";
import { mandateFor, newKey } from "../support/agent.js";
import { PUBLIC_ORIGIN, agentFetch, startGateway } from "../support/gateway.js";
import type { AgentResponse, TestGateway } from "../support/gateway.js";

const MAPLE = "/schcp/v0/maple-street-auto";
const DENTAL = "/schcp/v0/harbourview-dental";
let dir: string;
let gw: TestGateway;
const agent = newKey();
const principal = newKey();

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "gw-int-"));
  gw = await startGateway({ dataDir: dir, availabilityRate: { capacity: 6, refillPerSec: 0.05 } });
});
afterAll(async () => {
  await gw.close();
  await rm(dir, { recursive: true, force: true });
});

const mandate = (aud: string, who = agent) =>
  mandateFor({ principal, agent: who, aud, nowSec: gw.clock.sec });
let keyCounter = 0;
const key = () => `k-${Date.now()}-${++keyCounter}`;

function expectRefusal(r: AgentResponse, status: number, code: string, reason?: string): void {
  expect(r.status, JSON.stringify(r.json)).toBe(status);
  expect(r.headers.get("schcp-version")).toBe("0.4");
  expect(validateSchcp("Refusal", r.json).ok).toBe(true);
  expect(r.json).toMatchObject({ error: { code, ...(reason !== undefined && { reason }) } });
}

/** Wednesday 14 October 2026 (Toronto), a morning window. */
const WINDOW = { start: "2026-10-14T09:00:00-04:00", end: "2026-10-14T12:00:00-04:00" };

async function firstSlot(path: string, serviceId: string, who = agent, window = WINDOW): Promise<string> {
  const r = await agentFetch(gw, who, {
    method: "POST",
    path: `${path}/availability`,
    body: { service_id: serviceId, window },
  });
  expect(r.status, JSON.stringify(r.json)).toBe(200);
  expect(validateSchcp("AvailabilityResponse", r.json).ok).toBe(true);
  const slots = (r.json as { slots: Array<{ start: string }> }).slots;
  expect(slots.length).toBeGreaterThan(0);
  return slots[0]?.start ?? "";
}

async function discoveryKeys(path: string): Promise<Jwk[]> {
  const res = await fetch(`${gw.url}${path}`);
  return ((await res.json()) as { keys: Jwk[] }).keys;
}

describe("booking over real HTTP", () => {
  it("availability -> hold -> confirm -> read -> cancel at an instant host (§5.1-§5.6)", async () => {
    const start = await firstSlot(MAPLE, "oil-change");
    const m = await mandate("maple-street-auto");
    const hold = await agentFetch(gw, agent, {
      method: "POST",
      path: `${MAPLE}/holds`,
      mandate: m,
      body: { service_id: "oil-change", start, idempotency_key: key() },
    });
    expect(hold.status, JSON.stringify(hold.json)).toBe(201);
    expect(validateSchcp("Hold", hold.json).ok).toBe(true);
    const h = hold.json as { hold_id: string; offer: string };
    // The offer verifies against the discovery keys, named by kid (§2.1, §5.2).
    const verified = await verifyOffer(
      h.offer,
      await discoveryKeys("/hosts/maple-street-auto/scheduling.json"),
      {
        expectedIss: "maple-street-auto",
      },
    );
    expect(verified.ok).toBe(true);

    const read = await agentFetch(gw, agent, {
      method: "GET",
      path: `${MAPLE}/holds/${h.hold_id}`,
      mandate: m,
    });
    expect(read.status).toBe(200);
    expect((read.json as { offer: string }).offer).toBe(h.offer);

    const confirm = await agentFetch(gw, agent, {
      method: "POST",
      path: `${MAPLE}/holds/${h.hold_id}/confirm`,
      mandate: m,
      body: { idempotency_key: key(), offer_sha256: offerSha256(h.offer) },
    });
    expect(confirm.status, JSON.stringify(confirm.json)).toBe(201);
    expect(validateSchcp("BookingResponse", confirm.json).ok).toBe(true);
    const booking = (confirm.json as { booking: { booking_id: string; status: string; sequence: number } })
      .booking;
    expect(booking.status).toBe("confirmed");

    const got = await agentFetch(gw, agent, {
      method: "GET",
      path: `${MAPLE}/bookings/${booking.booking_id}`,
      mandate: m,
    });
    expect(got.status).toBe(200);
    expect(validateSchcp("BookingResponse", got.json).ok).toBe(true);

    const cancel = await agentFetch(gw, agent, {
      method: "POST",
      path: `${MAPLE}/bookings/${booking.booking_id}/cancel`,
      mandate: m,
      body: { idempotency_key: key(), reason: "plans changed" },
    });
    expect(cancel.status, JSON.stringify(cancel.json)).toBe(200);
    expect(cancel.json).toMatchObject({ booking: { status: "cancelled", sequence: booking.sequence + 1 } });
  });

  it("confirms 202 pending_host at a host_approval host, and the operator approves with the bearer only", async () => {
    const start = await firstSlot(DENTAL, "cleaning", agent, {
      start: "2026-10-14T09:00:00-07:00",
      end: "2026-10-14T12:00:00-07:00",
    });
    const m = await mandate("harbourview-dental");
    const hold = await agentFetch(gw, agent, {
      method: "POST",
      path: `${DENTAL}/holds`,
      mandate: m,
      body: { service_id: "cleaning", start, idempotency_key: key() },
    });
    expect(hold.status, JSON.stringify(hold.json)).toBe(201);
    const h = hold.json as { hold_id: string; offer: string };
    const confirm = await agentFetch(gw, agent, {
      method: "POST",
      path: `${DENTAL}/holds/${h.hold_id}/confirm`,
      mandate: m,
      body: { idempotency_key: key(), offer_sha256: offerSha256(h.offer) },
    });
    expect(confirm.status, JSON.stringify(confirm.json)).toBe(202);
    const id = (confirm.json as { booking: { booking_id: string; status: string } }).booking.booking_id;
    expect(confirm.json).toMatchObject({ booking: { status: "pending_host" } });

    const approvePath = `/operator/v0/harbourview-dental/bookings/${id}/approve`;
    // A request signed by the agent is not the operator's credential.
    const signed = await agentFetch(gw, agent, { method: "POST", path: approvePath, mandate: m });
    expect(signed.status).toBe(401);
    const approved = await fetch(gw.url + approvePath, {
      method: "POST",
      headers: { authorization: `Bearer ${gw.runtime.operatorToken}` },
    });
    expect(approved.status).toBe(200);
    expect(await approved.json()).toMatchObject({ booking: { booking_id: id, status: "confirmed" } });
    const listed = await fetch(`${gw.url}/operator/v0/harbourview-dental/bookings`, {
      headers: { authorization: `Bearer ${gw.runtime.operatorToken}` },
    });
    expect(((await listed.json()) as { bookings: unknown[] }).bookings.length).toBeGreaterThan(0);
  });

  it("replays a retried hold and refuses the key with another body (§9.1)", async () => {
    const start = await firstSlot(MAPLE, "brake-inspection");
    const m = await mandate("maple-street-auto");
    const body = { service_id: "brake-inspection", start, idempotency_key: key() };
    const first = await agentFetch(gw, agent, { method: "POST", path: `${MAPLE}/holds`, mandate: m, body });
    expect(first.status, JSON.stringify(first.json)).toBe(201);
    const again = await agentFetch(gw, agent, { method: "POST", path: `${MAPLE}/holds`, mandate: m, body });
    expect(again.status).toBe(201);
    expect(again.json).toEqual(first.json);
    const other = await agentFetch(gw, agent, {
      method: "POST",
      path: `${MAPLE}/holds`,
      mandate: m,
      body: { ...body, ttl: "PT2M" },
    });
    expectRefusal(other, 409, "IDEMPOTENCY_CONFLICT", "idempotency_conflict");
    // DELETE is exempt and idempotent by nature (§5.4, §9.1).
    const id = (first.json as { hold_id: string }).hold_id;
    const del1 = await agentFetch(gw, agent, { method: "DELETE", path: `${MAPLE}/holds/${id}`, mandate: m });
    const del2 = await agentFetch(gw, agent, { method: "DELETE", path: `${MAPLE}/holds/${id}`, mandate: m });
    expect(del1.status).toBe(200);
    expect(del2.status).toBe(200);
    expect(del2.json).toMatchObject({ hold_id: id, status: "released" });
  });

  it("answers SLOT_UNAVAILABLE with alternatives and the host's contact remedy (§5.2, §9.2)", async () => {
    const start = await firstSlot(MAPLE, "oil-change");
    const holds: AgentResponse[] = [];
    // Two bays: the third hold at the same start cannot be allocated.
    for (let i = 0; i < 3; i++) {
      const who = newKey();
      const m = await mandateFor({
        principal: newKey(),
        agent: who,
        aud: "maple-street-auto",
        nowSec: gw.clock.sec,
      });
      holds.push(
        await agentFetch(gw, who, {
          method: "POST",
          path: `${MAPLE}/holds`,
          mandate: m,
          body: { service_id: "oil-change", start, idempotency_key: key() },
        }),
      );
    }
    expect(
      holds.map((h) => h.status),
      JSON.stringify(holds.map((h) => h.json)),
    ).toEqual([201, 201, 409]);
    const refused = holds[2] as AgentResponse;
    expectRefusal(refused, 409, "SLOT_UNAVAILABLE", "slot_taken");
    const error = (
      refused.json as { error: { details?: { alternatives?: unknown[] }; remedies?: unknown[] } }
    ).error;
    expect(error.details?.alternatives?.length).toBeGreaterThan(0);
    expect(error.remedies).toContainEqual({ type: "contact", phone: "+1-416-555-0177" });
  });
});

describe("the edge's refusals over real HTTP", () => {
  const holdCall = async () => ({
    method: "POST",
    path: `${MAPLE}/holds`,
    mandate: await mandate("maple-street-auto"),
    body: { service_id: "oil-change", start: "2026-10-14T10:00:00-04:00", idempotency_key: key() },
  });

  it("refuses bad, stale and replayed signatures with 401 BAD_SIGNATURE (§3.2)", async () => {
    expectRefusal(
      await agentFetch(gw, agent, { ...(await holdCall()), headers: { signature: "schcp=:AAAA:" } }),
      401,
      "BAD_SIGNATURE",
      "bad_signature",
    );
    expectRefusal(
      await agentFetch(gw, agent, { ...(await holdCall()), created: gw.clock.sec - 301 }),
      401,
      "BAD_SIGNATURE",
      "stale_signature",
    );
    const nonce = "bm9uY2Utbm9uY2Utbm9uY2U";
    const call = await holdCall();
    const first = await agentFetch(gw, agent, { ...call, nonce });
    expect(first.status).not.toBe(401);
    expectRefusal(await agentFetch(gw, agent, { ...call, nonce }), 401, "BAD_SIGNATURE", "replayed_nonce");
  });

  it("ignores a spoofed Host header: the configured origin is the target URI (§3.2)", async () => {
    const call = await holdCall();
    const body = new TextEncoder().encode(JSON.stringify(call.body));
    const send = (signedOrigin: string, host: string) => {
      const headers = signSchcpRequest({
        method: "POST",
        targetUri: signedOrigin + call.path,
        body,
        mandate: call.mandate,
        privateKey: agent.privateKey,
        publicJwk: agent.publicJwk,
        created: gw.clock.sec,
      });
      return new Promise<number>((done, fail) => {
        const req = httpRequest(
          `${gw.url}${call.path}`,
          {
            method: "POST",
            headers: { ...headers, host, "x-forwarded-host": host, "content-type": "application/json" },
          },
          (res) => {
            res.resume();
            res.on("end", () => done(res.statusCode ?? 0));
          },
        );
        req.on("error", fail);
        req.end(body);
      });
    };
    // Signed for the public origin, sent with any Host: accepted.
    expect(await send(PUBLIC_ORIGIN, "evil.example")).not.toBe(401);
    // Signed for the Host the attacker sends: refused, whatever Host says.
    expect(await send("http://evil.example", "evil.example")).toBe(401);
  });

  it("refuses duplicate members, invalid UTF-8, closed-schema violations and payment data (§3.1, §5.2, §8)", async () => {
    const m = await mandate("maple-street-auto");
    const dup = await agentFetch(gw, agent, {
      method: "POST",
      path: `${MAPLE}/holds`,
      mandate: m,
      body: '{"service_id":"oil-change","service_id":"x","start":"2026-10-14T10:00:00-04:00","idempotency_key":"d1"}',
    });
    expectRefusal(dup, 400, "INVALID_REQUEST", "invalid_request");
    const utf8 = await agentFetch(gw, agent, {
      method: "POST",
      path: `${MAPLE}/holds`,
      mandate: m,
      body: new Uint8Array([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d]),
    });
    expectRefusal(utf8, 400, "INVALID_REQUEST", "invalid_request");
    const closed = await agentFetch(gw, agent, {
      method: "POST",
      path: `${MAPLE}/holds`,
      mandate: m,
      body: {
        service_id: "oil-change",
        start: "2026-10-14T10:00:00-04:00",
        idempotency_key: "c1",
        colour: "red",
      },
    });
    expectRefusal(closed, 400, "INVALID_REQUEST", "invalid_request");
    expect(closed.json).toMatchObject({ error: { details: { field: "/colour" } } });
    const payment = await agentFetch(gw, agent, {
      method: "POST",
      path: `${MAPLE}/holds`,
      mandate: m,
      body: {
        service_id: "oil-change",
        start: "2026-10-14T10:00:00-04:00",
        idempotency_key: "p1",
        payment: { card: "4111111111111111" },
      },
    });
    expectRefusal(payment, 400, "INVALID_REQUEST", "payment_not_accepted");
  });

  it("refuses a missing, expired or foreign mandate (§3.3)", async () => {
    const call = await holdCall();
    const { mandate: _m, ...unmandated } = call;
    expectRefusal(await agentFetch(gw, agent, unmandated), 401, "MANDATE_INVALID", "mandate_invalid");
    const expired = await mandateFor({
      principal,
      agent,
      aud: "maple-street-auto",
      nowSec: gw.clock.sec,
      over: { exp: gw.clock.sec - 1 },
    });
    expectRefusal(
      await agentFetch(gw, agent, { ...call, mandate: expired }),
      401,
      "MANDATE_INVALID",
      "mandate_expired",
    );
    const foreign = await mandate("fades-on-queen");
    expectRefusal(
      await agentFetch(gw, agent, { ...call, mandate: foreign }),
      401,
      "MANDATE_INVALID",
      "mandate_invalid",
    );
    const noHoldScope = await mandateFor({
      principal,
      agent,
      aud: "maple-street-auto",
      nowSec: gw.clock.sec,
      over: { scope: ["book"] },
    });
    expectRefusal(await agentFetch(gw, agent, { ...call, mandate: noHoldScope }), 403, "MANDATE_SCOPE");
  });

  it("rate-limits availability per agent key across every host, with Retry-After (§7.2)", async () => {
    const who = newKey();
    const ask = (path: string) =>
      agentFetch(gw, who, {
        method: "POST",
        path: `${path}/availability`,
        body: { service_id: "haircut", window: WINDOW },
      });
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await ask(i % 2 ? "/schcp/v0/fades-on-queen" : MAPLE)).status);
    // Maple has no haircut (404/400 from the core), fades does: both draw on the same bucket.
    expect(statuses.every((s) => s !== 429)).toBe(true);
    const limited = await ask("/schcp/v0/fades-on-queen");
    expectRefusal(limited, 429, "RATE_LIMITED", "rate_limited");
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
  });
});

describe("webhooks through the runtime's outbox (§5.8)", () => {
  it("delivers booking.cancelled_by_host to the hold's callback_url, signed with the host key from discovery", async () => {
    const hookDir = await mkdtemp(join(tmpdir(), "gw-hook-"));
    const delivered: OutboundRequest[] = [];
    const webhookFetch: PublicFetch = (request) => {
      delivered.push(request);
      return Promise.resolve({
        ok: true,
        value: {
          status: 204,
          headers: {},
          body: new Uint8Array(0),
          truncated: false,
          remoteAddress: "203.0.113.7",
        },
      });
    };
    const hooked = await startGateway({ dataDir: hookDir, webhookFetch });
    try {
      const m = await mandateFor({ principal, agent, aud: "maple-street-auto", nowSec: hooked.clock.sec });
      const slots = await agentFetch(hooked, agent, {
        method: "POST",
        path: `${MAPLE}/availability`,
        body: { service_id: "oil-change", window: WINDOW },
      });
      const start = (slots.json as { slots: Array<{ start: string }> }).slots[0]?.start;
      const callback = "https://agent.test/hooks/schcp";
      const hold = await agentFetch(hooked, agent, {
        method: "POST",
        path: `${MAPLE}/holds`,
        mandate: m,
        body: { service_id: "oil-change", start, idempotency_key: key(), callback_url: callback },
      });
      const h = hold.json as { hold_id: string; offer: string };
      const confirm = await agentFetch(hooked, agent, {
        method: "POST",
        path: `${MAPLE}/holds/${h.hold_id}/confirm`,
        mandate: m,
        body: { idempotency_key: key(), offer_sha256: offerSha256(h.offer) },
      });
      const id = (confirm.json as { booking: { booking_id: string } }).booking.booking_id;
      const cancelled = await fetch(`${hooked.url}/operator/v0/maple-street-auto/bookings/${id}/cancel`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${hooked.runtime.operatorToken}`,
          "content-type": "application/json",
        },
        body: JSON.stringify({ message: "The lift is broken" }),
      });
      expect(cancelled.status).toBe(200);
      for (let i = 0; i < 100 && delivered.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
      expect(delivered).toHaveLength(1);
      const sent = delivered[0] as OutboundRequest;
      expect(sent.url).toBe(callback);
      const body = sent.body ?? new Uint8Array(0);
      const verified = await verifyHostWebhook({
        method: sent.method,
        targetUri: callback,
        headers: (name) => sent.headers[name.toLowerCase()],
        body,
        nowSec: hooked.clock.sec,
        discoveryKeys: (hooked.runtime.documents.host("maple-street-auto") as { keys: Jwk[] }).keys,
        nonces: new MemoryNonceMemory(() => hooked.clock.sec),
      });
      expect(verified.ok).toBe(true);
      const event: unknown = JSON.parse(new TextDecoder().decode(body));
      expect(validateSchcp("WebhookEvent", event).ok).toBe(true);
      expect(event).toMatchObject({ type: "booking.cancelled_by_host", booking: { booking_id: id } });
    } finally {
      await hooked.close();
      await rm(hookDir, { recursive: true, force: true });
    }
  });
});

describe("host keys across a restart (§2.1)", () => {
  it("an offer signed before a restart verifies against discovery after it", async () => {
    const restartDir = await mkdtemp(join(tmpdir(), "gw-restart-"));
    try {
      const before = await startGateway({ dataDir: restartDir });
      const m = await mandateFor({ principal, agent, aud: "maple-street-auto", nowSec: before.clock.sec });
      const slots = await agentFetch(before, agent, {
        method: "POST",
        path: `${MAPLE}/availability`,
        body: { service_id: "oil-change", window: WINDOW },
      });
      const start = (slots.json as { slots: Array<{ start: string }> }).slots[0]?.start;
      const hold = await agentFetch(before, agent, {
        method: "POST",
        path: `${MAPLE}/holds`,
        mandate: m,
        body: { service_id: "oil-change", start, idempotency_key: key() },
      });
      expect(hold.status).toBe(201);
      const offer = (hold.json as { offer: string }).offer;
      const keysBefore = before.runtime.documents.host("maple-street-auto") as { keys: Jwk[] };
      expect(before.runtime.generatedKeys).toEqual([
        "maple-street-auto",
        "harbourview-dental",
        "fades-on-queen",
      ]);
      await before.close();

      const after = await startGateway({ dataDir: restartDir });
      try {
        expect(after.runtime.generatedKeys).toEqual([]);
        const res = await fetch(`${after.url}/hosts/maple-street-auto/scheduling.json`);
        const doc = (await res.json()) as { keys: Jwk[]; endpoint: string };
        expect(validateSchcp("DiscoveryDocument", doc).ok).toBe(true);
        expect(doc.endpoint).toBe(`${PUBLIC_ORIGIN}/schcp/v0/maple-street-auto`);
        expect(doc.keys).toEqual(keysBefore.keys);
        expect(doc.keys[0]?.kid).toBe("maple-street-auto-2026-10");
        expect((await verifyOffer(offer, doc.keys, { expectedIss: "maple-street-auto" })).ok).toBe(true);
      } finally {
        await after.close();
      }
    } finally {
      await rm(restartDir, { recursive: true, force: true });
    }
  });
});
