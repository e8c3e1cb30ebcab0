/**
 * End to end: every refusal reason reachable at the embedded default over real HTTP — request
 * signatures (§3.2), mandates (§3.3), closed request schemas and duplicate members (§3.1,
 * §5.2), payment data (§8), contracts and sequences (§5.3, §5.7), idempotency (§9.1), holds
 * and limits (§5.2, §7.2). Each refusal must be the §9.2 shape with a registered reason,
 * which the SDK checks before it hands it over.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KeyApp, createAgentKey } from "../../src/agent/index.js";
import type { DiscoveredHost } from "../../src/agent/index.js";
import { encodeAgentKeyHeader } from "../../src/protocol/http-signatures/index.js";
import { signMandateClaims } from "../../src/protocol/schcp/mandate/index.js";
import { offerSha256 } from "../../src/protocol/schcp/offer/index.js";
import { isRegisteredReason } from "../../src/protocol/schcp/refusals.js";
import type { RefusalBody } from "../../src/protocol/schcp/types.js";
import { validateSchcp } from "../../src/protocol/schcp/validate.js";
import { formatInstant } from "../../src/protocol/time/index.js";
import {
  DAY_MS,
  discover,
  freeSlots,
  holdAndBook,
  must,
  newAgent,
  openMandate,
  refusalOf,
} from "./support/agents.js";
import type { E2eAgent } from "./support/agents.js";
import { startGateway } from "./support/gateway.js";
import type { E2eGateway } from "./support/gateway.js";

let gw: E2eGateway;
beforeAll(async () => {
  gw = await startGateway();
});
afterAll(async () => {
  await gw?.close();
});

/** A raw answer read as a refusal: status, the §9.2 body validated, its reason registered. */
async function refusalFrom(res: Response): Promise<RefusalBody["error"] & { status: number }> {
  const body: unknown = await res.json();
  const valid = validateSchcp("Refusal", body);
  if (!valid.ok) throw new Error(`HTTP ${res.status} is not a refusal: ${JSON.stringify(body)}`);
  expect(res.headers.get("schcp-version")).toBe("0.4");
  expect(isRegisteredReason(valid.value.error.code, valid.value.error.reason)).toBe(true);
  return { ...valid.value.error, status: res.status };
}

interface Ctx {
  agent: E2eAgent;
  maple: DiscoveredHost;
  slot: string;
  mandate: string;
}

async function ctx(fromDays = 2): Promise<Ctx> {
  const agent = newAgent(gw);
  const maple = await discover(agent, gw, "maple-street-auto");
  const slots = await freeSlots(agent, gw, maple, "oil-change", { fromDays });
  const m = await openMandate(agent, maple.hostId);
  return { agent, maple, slot: slots[0]!.start, mandate: m.compact };
}

const holdBody = (slot: string, extra: Record<string, unknown> = {}) => ({
  service_id: "oil-change",
  start: slot,
  idempotency_key: `k-${Math.random().toString(36).slice(2)}`,
  ...extra,
});

describe("request signatures (SchCP §3.2): 401 BAD_SIGNATURE", () => {
  it("refuses a signature made by another key than the one sent (bad_signature)", async () => {
    const c = await ctx();
    const imposter = createAgentKey();
    const res = must(
      await c.agent.client.signedFetch({
        method: "POST",
        url: `${c.maple.endpoint}/holds`,
        body: holdBody(c.slot),
        mandate: c.mandate,
        headers: { "schcp-agent-key": encodeAgentKeyHeader(imposter.publicJwk) },
      }),
      "send",
    );
    expect(await refusalFrom(res)).toMatchObject({
      status: 401,
      code: "BAD_SIGNATURE",
      reason: "bad_signature",
    });
  });

  it("refuses a body changed after signing (content-digest) and an unsigned request (bad_signature)", async () => {
    const c = await ctx();
    const signed = must(
      await c.agent.client.signedFetch({
        method: "POST",
        url: `${c.maple.endpoint}/availability`,
        body: "{}",
      }),
      "send",
    );
    await signed.body?.cancel();
    const tampered = await fetch(`${c.maple.endpoint}/availability`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ service_id: "oil-change", window: { start: c.slot, end: c.slot } }),
    });
    expect(await refusalFrom(tampered)).toMatchObject({
      status: 401,
      code: "BAD_SIGNATURE",
      reason: "bad_signature",
    });
  });

  it("refuses a signature whose created is more than 300 s from the host's clock (stale_signature)", async () => {
    const c = await ctx();
    for (const skew of [-301, 301]) {
      const res = must(
        await c.agent.client.signedFetch({
          method: "GET",
          url: `${c.maple.endpoint}/holds/h_x`,
          mandate: c.mandate,
          created: Math.floor(gw.clock.now() / 1000) + skew,
        }),
        "send",
      );
      expect(await refusalFrom(res)).toMatchObject({
        status: 401,
        code: "BAD_SIGNATURE",
        reason: "stale_signature",
      });
    }
  });

  it("refuses a nonce used before by the same key (replayed_nonce), once its first use verified", async () => {
    const c = await ctx();
    const nonce = Buffer.from("a-fixed-nonce-16b").toString("base64url");
    const send = () =>
      c.agent.client.signedFetch({
        method: "GET",
        url: `${c.maple.endpoint}/holds/h_none`,
        mandate: c.mandate,
        nonce,
      });
    const first = must(await send(), "first");
    expect((await refusalFrom(first)).code).toBe("NOT_FOUND");
    const second = must(await send(), "replay");
    expect(await refusalFrom(second)).toMatchObject({
      status: 401,
      code: "BAD_SIGNATURE",
      reason: "replayed_nonce",
    });
  });

  it("rebuilds @target-uri from the public origin, never the Host header (§3.2)", async () => {
    const c = await ctx();
    const res = must(
      await c.agent.client.signedFetch({
        method: "GET",
        url: `${c.maple.endpoint}/holds/h_none`,
        mandate: c.mandate,
        headers: { "x-forwarded-host": "evil.example", "x-forwarded-proto": "https" },
      }),
      "send",
    );
    expect((await refusalFrom(res)).code).toBe("NOT_FOUND");
    // Signed for another origin and sent here: refused, whatever Host says.
    const { signSchcpRequest } = await import("../../src/protocol/http-signatures/index.js");
    const path = new URL(`${c.maple.endpoint}/holds/h_none`).pathname;
    const headers = signSchcpRequest({
      method: "GET",
      targetUri: `https://evil.example${path}`,
      mandate: c.mandate,
      privateKey: c.agent.key.privateKey,
      publicJwk: c.agent.key.publicJwk,
      created: Math.floor(gw.clock.now() / 1000),
    });
    const spoofed = await fetch(`${gw.origin}${path}`, { headers: { ...headers, host: "evil.example" } });
    expect(await refusalFrom(spoofed)).toMatchObject({ status: 401, code: "BAD_SIGNATURE" });
  });
});

describe("mandates (SchCP §3.3)", () => {
  it("refuses a hold without a mandate (401 MANDATE_INVALID)", async () => {
    const c = await ctx();
    expect(refusalOf(await c.agent.client.hold(c.maple, holdBody(c.slot)))).toMatchObject({
      status: 401,
      code: "MANDATE_INVALID",
      reason: "mandate_invalid",
    });
  });

  it.each<[string, (c: Ctx, app: KeyApp) => Promise<string>]>([
    ["not a JWS", () => Promise.resolve("not.a.mandate")],
    [
      "for another host",
      (c, app) =>
        app
          .issueMandate({ agent: c.agent.key, audience: "someone-else", scope: ["hold"] })
          .then((m) => m.compact),
    ],
    [
      "for another agent key (cnf.jkt)",
      (_c, app) =>
        app
          .issueMandate({ agent: createAgentKey(), audience: "maple-street-auto", scope: ["hold"] })
          .then((m) => m.compact),
    ],
    [
      "with a wildcard audience",
      (c, app) =>
        app.issueMandate({ agent: c.agent.key, audience: "*", scope: ["hold"] }).then((m) => m.compact),
    ],
    [
      "with an unknown claim",
      async (c) => {
        const principal = createAgentKey();
        const app = new KeyApp({ principalKey: principal, clock: gw.clock });
        const issued = await app.issueMandate({
          agent: c.agent.key,
          audience: "maple-street-auto",
          scope: ["hold"],
        });
        return signMandateClaims(
          {
            ...issued.claims,
            iss: app.principal,
            principal_jwk: principal.publicJwk,
            payment_method: "visa",
          },
          principal.privateKey,
        );
      },
    ],
    [
      "issued in the future (iat > now + 60 s)",
      (c) =>
        new KeyApp({ principalKey: createAgentKey(), clock: { now: () => gw.clock.now() + 120_000 } })
          .issueMandate({ agent: c.agent.key, audience: "maple-street-auto", scope: ["hold"] })
          .then((m) => m.compact),
    ],
  ])("refuses a mandate %s (401 MANDATE_INVALID mandate_invalid)", async (_label, make) => {
    const c = await ctx();
    const mandate = await make(c, c.agent.keyApp);
    expect(refusalOf(await c.agent.client.hold(c.maple, holdBody(c.slot), { mandate }))).toMatchObject({
      status: 401,
      code: "MANDATE_INVALID",
      reason: "mandate_invalid",
    });
  });

  it("refuses an expired mandate as mandate_expired, so the agent asks for a fresh one", async () => {
    const c = await ctx();
    const past = new KeyApp({
      principalKey: createAgentKey(),
      clock: { now: () => gw.clock.now() - 2 * 3_600_000 },
    });
    const m = await past.issueMandate({
      agent: c.agent.key,
      audience: "maple-street-auto",
      scope: ["hold"],
      ttlSec: 600,
    });
    expect(
      refusalOf(await c.agent.client.hold(c.maple, holdBody(c.slot), { mandate: m.compact })),
    ).toMatchObject({
      status: 401,
      code: "MANDATE_INVALID",
      reason: "mandate_expired",
    });
  });

  it.each<[string, (c: Ctx) => Promise<string>, string, string]>([
    [
      "without hold in scope",
      (c) => openMandate(c.agent, "maple-street-auto", { scope: ["book"] }).then((m) => m.compact),
      "MANDATE_SCOPE",
      "not_in_scope",
    ],
    [
      "for another service",
      (c) =>
        openMandate(c.agent, "maple-street-auto", { constraints: { services: ["brake-inspection"] } }).then(
          (m) => m.compact,
        ),
      "MANDATE_SCOPE",
      "service_not_allowed",
    ],
    [
      "whose window ends before the slot",
      (c) =>
        openMandate(c.agent, "maple-street-auto", {
          constraints: {
            window: {
              not_before: formatInstant(gw.clock.now()),
              not_after: formatInstant(gw.clock.now() + 60_000),
            },
          },
        }).then((m) => m.compact),
      "MANDATE_LIMIT",
      "outside_window",
    ],
    [
      "whose max_price is below the total",
      (c) =>
        openMandate(c.agent, "maple-street-auto", {
          constraints: { max_price: { amount: "89.26", currency: "CAD" } },
        }).then((m) => m.compact),
      "MANDATE_LIMIT",
      "over_max_price",
    ],
    [
      "whose max_price is in another currency",
      (c) =>
        openMandate(c.agent, "maple-street-auto", {
          constraints: { max_price: { amount: "500.00", currency: "USD" } },
        }).then((m) => m.compact),
      "MANDATE_LIMIT",
      "currency_mismatch",
    ],
    [
      "that manages bookings only",
      (c) =>
        openMandate(c.agent, "maple-street-auto", {
          scope: ["hold", "cancel"],
          constraints: { bookings: ["b_other"] },
        }).then((m) => m.compact),
      "MANDATE_SCOPE",
      "booking_not_allowed",
    ],
  ])("refuses a hold under a mandate %s (403)", async (_label, make, code, reason) => {
    const c = await ctx();
    const mandate = await make(c);
    expect(refusalOf(await c.agent.client.hold(c.maple, holdBody(c.slot), { mandate }))).toMatchObject({
      status: 403,
      code,
      reason,
    });
  });

  it("refuses a second booking beyond max_bookings (§3.3 check 6, §7.1)", async () => {
    const c = await ctx(3);
    const m = await openMandate(c.agent, "maple-street-auto", { constraints: { max_bookings: 1 } });
    const slots = await freeSlots(c.agent, gw, c.maple, "oil-change", { fromDays: 3 });
    await holdAndBook(c.agent, c.maple, "oil-change", slots[0]!.start, m);
    const later = slots.find((s) => Date.parse(s.start) >= Date.parse(slots[0]!.start) + 3_600_000)!;
    const r = refusalOf(await c.agent.client.hold(c.maple, holdBody(later.start), { mandate: m.compact }));
    expect([`${r.code}/${r.reason}`]).toEqual([
      expect.stringMatching(/^(MANDATE_LIMIT\/max_bookings_reached|HOLD_LIMIT\/mandate_limit)$/),
    ]);
  });

  it("lets a management mandate act only on its own booking, and never hold (§3.3)", async () => {
    const c = await ctx(4);
    const slots = await freeSlots(c.agent, gw, c.maple, "oil-change", { fromDays: 4 });
    const first = await holdAndBook(c.agent, c.maple, "oil-change", slots[0]!.start);
    const manage = await c.agent.keyApp.managementMandate(first.booking, { agent: c.agent.key });
    const other = await holdAndBook(
      c.agent,
      c.maple,
      "oil-change",
      slots.find((s) => Date.parse(s.start) >= Date.parse(slots[0]!.start) + 3_600_000)!.start,
    );
    const otherId = other.booking.booking.booking_id;
    expect(
      refusalOf(await c.agent.client.cancel(c.maple, otherId, {}, { mandate: manage.compact })),
    ).toMatchObject({ status: 403, code: "MANDATE_SCOPE", reason: "booking_not_allowed" });
    expect(
      refusalOf(await c.agent.client.getBooking(c.maple, otherId, { mandate: manage.compact })).status,
    ).toBe(403);
    expect(
      refusalOf(
        await c.agent.client.hold(c.maple, holdBody(slots.at(-1)!.start), { mandate: manage.compact }),
      ).status,
    ).toBe(403);
  });

  it("accepts under a closed mandate only the offer it names (offer_mismatch), and refuses a release under it (§5.3)", async () => {
    const c = await ctx(5);
    const slots = await freeSlots(c.agent, gw, c.maple, "oil-change", { fromDays: 5 });
    const a = must(
      await c.agent.client.hold(c.maple, holdBody(slots[0]!.start), { mandate: c.mandate }),
      "hold a",
    );
    const b = must(
      await c.agent.client.hold(c.maple, holdBody(slots.at(-1)!.start), { mandate: c.mandate }),
      "hold b",
    );
    const closedA = must(
      await c.agent.keyApp.closedMandate(a.body.offer, c.maple, { agent: c.agent.key }),
      "closed a",
    );
    const r = refusalOf(
      await c.agent.client.confirm(
        c.maple,
        b.body.hold_id,
        { offer_sha256: offerSha256(b.body.offer) },
        { mandate: closedA.compact },
      ),
    );
    expect(r.status).toBe(403);
    expect([`${r.code}/${r.reason}`]).toEqual([
      expect.stringMatching(/^MANDATE_(LIMIT\/offer_mismatch|LIMIT\/outside_window|SCOPE\/.*)$/),
    ]);
    // A book-only closed mandate has no hold scope; one that has it still names one offer only.
    expect(
      refusalOf(await c.agent.client.releaseHold(c.maple, a.body.hold_id, { mandate: closedA.compact })),
    ).toMatchObject({
      status: 403,
      code: "MANDATE_SCOPE",
    });
    const wide = await openMandate(c.agent, "maple-street-auto", {
      scope: ["hold", "book"],
      constraints: { offer_sha256: offerSha256(a.body.offer) },
    });
    expect(
      refusalOf(await c.agent.client.releaseHold(c.maple, a.body.hold_id, { mandate: wide.compact })),
    ).toMatchObject({
      status: 403,
      code: "MANDATE_LIMIT",
      reason: "offer_mismatch",
    });
    for (const h of [a, b])
      must(await c.agent.client.releaseHold(c.maple, h.body.hold_id, { mandate: c.mandate }), "release");
  });

  it("keeps one principal's holds from another principal's mandate on the same agent key (§5.3 same principal)", async () => {
    const c = await ctx(6);
    const hold = must(await c.agent.client.hold(c.maple, holdBody(c.slot), { mandate: c.mandate }), "hold");
    const stranger = new KeyApp({ principalKey: createAgentKey(), clock: gw.clock });
    const m = await stranger.issueMandate({
      agent: c.agent.key,
      audience: "maple-street-auto",
      scope: ["book"],
    });
    const r = refusalOf(
      await c.agent.client.confirm(
        c.maple,
        hold.body.hold_id,
        { offer_sha256: offerSha256(hold.body.offer) },
        { mandate: m.compact },
      ),
    );
    expect([403, 404]).toContain(r.status);
    must(await c.agent.client.releaseHold(c.maple, hold.body.hold_id, { mandate: c.mandate }), "release");
  });
});

describe("request bodies (SchCP §3.1, §5.2, §8): 400 INVALID_REQUEST", () => {
  const send = (c: Ctx, body: unknown, path = "/holds") =>
    c.agent.client.signedFetch({
      method: "POST",
      url: `${c.maple.endpoint}${path}`,
      body,
      mandate: c.mandate,
    });

  it.each<[string, (slot: string) => unknown, string]>([
    [
      "a member the HoldRequest schema does not define",
      (s) => holdBody(s, { note: "hi" }),
      "invalid_request",
    ],
    ["a member nested in place", (s) => holdBody(s, { place: { name: "x", gate: "3" } }), "invalid_request"],
    ["no idempotency_key", (s) => ({ service_id: "oil-change", start: s }), "invalid_request"],
    ["a start without an offset", (s) => holdBody(s.slice(0, 19)), "invalid_request"],
    [
      "a payment member",
      (s) => holdBody(s, { payment: { card: "4242424242424242" } }),
      "payment_not_accepted",
    ],
    [
      "a deposit member",
      (s) => holdBody(s, { deposit: { amount: "10.00", currency: "CAD" } }),
      "payment_not_accepted",
    ],
  ])("refuses a hold with %s", async (_label, body, reason) => {
    const c = await ctx();
    const res = must(await send(c, body(c.slot)), "send");
    expect(await refusalFrom(res)).toMatchObject({ status: 400, code: "INVALID_REQUEST", reason });
  });

  it("refuses duplicate member names and invalid UTF-8, which two parsers could read differently (§3.1)", async () => {
    const c = await ctx();
    const body = JSON.stringify(holdBody(c.slot));
    const dup = `{"service_id":"brake-inspection",${body.slice(1)}`;
    expect(await refusalFrom(must(await send(c, dup), "dup"))).toMatchObject({
      status: 400,
      code: "INVALID_REQUEST",
    });
    const bytes = new TextEncoder().encode(body.replace('"oil-change"', '"oil-chang\u00e9"'));
    const bad = Uint8Array.from([
      ...bytes.slice(0, bytes.indexOf(0xc3)),
      0xc3,
      0x28,
      ...bytes.slice(bytes.indexOf(0xc3) + 2),
    ]);
    expect(await refusalFrom(must(await send(c, bad), "utf8"))).toMatchObject({
      status: 400,
      code: "INVALID_REQUEST",
    });
    expect(await refusalFrom(must(await send(c, "{not json"), "json"))).toMatchObject({
      status: 400,
      code: "INVALID_REQUEST",
    });
  });

  it("refuses a confirm without offer_sha256, and card data in free-text notes (§5.3, §8)", async () => {
    const c = await ctx();
    const hold = must(await c.agent.client.hold(c.maple, holdBody(c.slot), { mandate: c.mandate }), "hold");
    const path = `/holds/${hold.body.hold_id}/confirm`;
    expect(await refusalFrom(must(await send(c, { idempotency_key: "c-1" }, path), "no hash"))).toMatchObject(
      { status: 400, code: "INVALID_REQUEST" },
    );
    const notes = {
      idempotency_key: "c-2",
      offer_sha256: offerSha256(hold.body.offer),
      notes: "card 4242 4242 4242 4242 exp 12/30",
    };
    expect(await refusalFrom(must(await send(c, notes, path), "card"))).toMatchObject({
      status: 400,
      code: "INVALID_REQUEST",
      reason: "payment_not_accepted",
    });
    must(await c.agent.client.releaseHold(c.maple, hold.body.hold_id, { mandate: c.mandate }), "release");
  });

  it("refuses a body over the size bound with 413", async () => {
    const c = await ctx();
    const res = must(await send(c, holdBody(c.slot, { pad: "x".repeat(70 * 1024) })), "send");
    expect(res.status).toBe(413);
    await res.body?.cancel();
  });
});

describe("contracts and sequences (SchCP §5.3, §5.7): 409", () => {
  it("refuses a confirm naming another offer (CONTRACT_MISMATCH) with the hold's hash in details", async () => {
    const c = await ctx();
    const hold = must(await c.agent.client.hold(c.maple, holdBody(c.slot), { mandate: c.mandate }), "hold");
    const r = refusalOf(
      await c.agent.client.confirm(
        c.maple,
        hold.body.hold_id,
        { offer_sha256: "A".repeat(43) },
        { mandate: c.mandate },
      ),
    );
    expect(r).toMatchObject({ status: 409, code: "CONTRACT_MISMATCH", reason: "contract_mismatch" });
    expect(r.details).toMatchObject({ offer_sha256: offerSha256(hold.body.offer) });
    must(await c.agent.client.releaseHold(c.maple, hold.body.hold_id, { mandate: c.mandate }), "release");
  });

  it("refuses a stale sequence (STALE_SEQUENCE) and a reschedule naming another offer (CONTRACT_MISMATCH)", async () => {
    const c = await ctx(7);
    const slots = await freeSlots(c.agent, gw, c.maple, "oil-change", { fromDays: 7 });
    const booked = await holdAndBook(c.agent, c.maple, "oil-change", slots[0]!.start);
    const id = booked.booking.booking.booking_id;
    const later = slots.find(
      (s) => Date.parse(s.start) >= Date.parse(slots[0]!.start) + 2 * 3_600_000,
    )!.start;
    const opts = { mandate: booked.mandate.compact };
    expect(
      refusalOf(await c.agent.client.changeOffer(c.maple, id, { sequence: 3, start: later }, opts)),
    ).toMatchObject({
      status: 409,
      code: "STALE_SEQUENCE",
      reason: "stale_sequence",
    });
    const change = must(
      await c.agent.client.changeOffer(c.maple, id, { sequence: 0, start: later }, opts),
      "change-offer",
    );
    const hash = offerSha256(change.body.proposal.offer);
    expect(
      refusalOf(
        await c.agent.client.reschedule(
          c.maple,
          id,
          { sequence: 0, offer_sha256: booked.held.offer.sha256 },
          opts,
        ),
      ),
    ).toMatchObject({
      status: 409,
      code: "CONTRACT_MISMATCH",
    });
    expect(
      refusalOf(await c.agent.client.reschedule(c.maple, id, { sequence: 1, offer_sha256: hash }, opts)),
    ).toMatchObject({
      status: 409,
      code: "STALE_SEQUENCE",
    });
    must(
      await c.agent.client.reschedule(c.maple, id, { sequence: 0, offer_sha256: hash }, opts),
      "reschedule",
    );
  });
});

describe("idempotency (SchCP §9.1)", () => {
  it("replays the stored answer for the same key and body, and refuses another body (IDEMPOTENCY_CONFLICT)", async () => {
    const c = await ctx(8);
    const body = holdBody(c.slot);
    const first = must(await c.agent.client.hold(c.maple, body, { mandate: c.mandate }), "first");
    const replay = must(await c.agent.client.hold(c.maple, body, { mandate: c.mandate }), "replay");
    expect(replay.status).toBe(first.status);
    expect(replay.body).toEqual(first.body);
    const other = { ...body, start: formatInstant(Date.parse(c.slot) + 3_600_000, "America/Toronto") };
    expect(refusalOf(await c.agent.client.hold(c.maple, other, { mandate: c.mandate }))).toMatchObject({
      status: 409,
      code: "IDEMPOTENCY_CONFLICT",
      reason: "idempotency_conflict",
    });
    must(await c.agent.client.releaseHold(c.maple, first.body.hold_id, { mandate: c.mandate }), "release");
  });

  it("replays a confirm under a re-issued mandate without booking twice, and not for another principal", async () => {
    const c = await ctx(8);
    const hold = must(await c.agent.client.hold(c.maple, holdBody(c.slot), { mandate: c.mandate }), "hold");
    const body = { offer_sha256: offerSha256(hold.body.offer), idempotency_key: "confirm-once" };
    const first = must(
      await c.agent.client.confirm(c.maple, hold.body.hold_id, body, { mandate: c.mandate }),
      "confirm",
    );
    const fresh = await openMandate(c.agent, "maple-street-auto");
    const again = must(
      await c.agent.client.confirm(c.maple, hold.body.hold_id, body, { mandate: fresh.compact }),
      "replay",
    );
    expect(again.body.booking.booking_id).toBe(first.body.booking.booking_id);
    const stranger = new KeyApp({ principalKey: createAgentKey(), clock: gw.clock });
    const m = await stranger.issueMandate({
      agent: c.agent.key,
      audience: "maple-street-auto",
      scope: ["book"],
    });
    const r = refusalOf(
      await c.agent.client.confirm(c.maple, hold.body.hold_id, body, { mandate: m.compact }),
    );
    expect(r.status).toBeGreaterThanOrEqual(403);
  });

  it("does not store a 403, so the same key works once the mandate is corrected (§9.1)", async () => {
    const c = await ctx(9);
    const body = holdBody(c.slot);
    const narrow = await openMandate(c.agent, "maple-street-auto", { scope: ["book"] });
    expect(refusalOf(await c.agent.client.hold(c.maple, body, { mandate: narrow.compact })).status).toBe(403);
    const ok = must(await c.agent.client.hold(c.maple, body, { mandate: c.mandate }), "corrected");
    expect(ok.status).toBe(201);
    must(await c.agent.client.releaseHold(c.maple, ok.body.hold_id, { mandate: c.mandate }), "release");
  });
});

describe("holds and limits (SchCP §5.2, §7.2, §10)", () => {
  it("answers a taken slot with 409 SLOT_UNAVAILABLE and up to five alternatives", async () => {
    const c = await ctx(10);
    const start = c.slot;
    const fillers: { agent: E2eAgent; id: string; m: string }[] = [];
    let refusal: ReturnType<typeof refusalOf> | undefined;
    for (let i = 0; i < 4 && refusal === undefined; i++) {
      const a = newAgent(gw);
      const m = (await openMandate(a, "maple-street-auto")).compact;
      const r = await a.client.hold(c.maple, holdBody(start), { mandate: m });
      if (r.ok) fillers.push({ agent: a, id: r.value.body.hold_id, m });
      else refusal = refusalOf(r);
    }
    expect(refusal).toMatchObject({ status: 409, code: "SLOT_UNAVAILABLE", reason: "slot_taken" });
    const alternatives = refusal!.details?.["alternatives"] as unknown[];
    expect(alternatives.length).toBeGreaterThan(0);
    expect(alternatives.length).toBeLessThanOrEqual(5);
    for (const alt of alternatives) expect(validateSchcp("Slot", alt).ok).toBe(true);
    for (const f of fillers)
      must(await f.agent.client.releaseHold(c.maple, f.id, { mandate: f.m }), "release");
  });

  it("refuses a fourth active hold from one agent (429 HOLD_LIMIT agent_limit, §7.2)", async () => {
    const c = await ctx(11);
    const slots = await freeSlots(c.agent, gw, c.maple, "oil-change", { fromDays: 11, limit: 50 });
    const starts = slots.filter((_, i) => i % 8 === 0).map((s) => s.start);
    const ids: string[] = [];
    for (const start of starts.slice(0, 3))
      ids.push(
        must(await c.agent.client.hold(c.maple, holdBody(start), { mandate: c.mandate }), "hold").body
          .hold_id,
      );
    expect(
      refusalOf(await c.agent.client.hold(c.maple, holdBody(starts[3]!), { mandate: c.mandate })),
    ).toMatchObject({
      status: 429,
      code: "HOLD_LIMIT",
      reason: "agent_limit",
    });
    for (const id of ids)
      must(await c.agent.client.releaseHold(c.maple, id, { mandate: c.mandate }), "release");
  });

  it("refuses a start past the 31-day horizon (409 SLOT_UNAVAILABLE availability_unknown, §10)", async () => {
    const c = await ctx();
    const far = formatInstant(Date.parse(c.slot) + 35 * DAY_MS, "America/Toronto");
    expect(
      refusalOf(await c.agent.client.hold(c.maple, holdBody(far), { mandate: c.mandate })),
    ).toMatchObject({
      code: "SLOT_UNAVAILABLE",
      reason: "availability_unknown",
    });
  });

  it("rate-limits availability per agent key with Retry-After (429 RATE_LIMITED, §7.2)", async () => {
    const c = await ctx();
    const req = {
      service_id: "oil-change",
      window: { start: c.slot, end: formatInstant(Date.parse(c.slot) + 3_600_000) },
    };
    let limited: Awaited<ReturnType<typeof c.agent.client.availability>> | undefined;
    for (let i = 0; i < 100 && limited === undefined; i++) {
      const r = await c.agent.client.availability(c.maple, req);
      if (!r.ok) limited = r;
    }
    expect(limited).toBeDefined();
    expect(refusalOf(limited!)).toMatchObject({ status: 429, code: "RATE_LIMITED" });
    expect(!limited!.ok && limited!.error.retryAfterSec).toBeGreaterThan(0);
    // Another agent key has its own bucket.
    const other = newAgent(gw);
    expect((await other.client.availability(c.maple, req)).ok).toBe(true);
  });
});
