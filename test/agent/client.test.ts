import { describe, expect, it } from "vitest";
import { SchcpClient, createAgentKey, verifyBookingReceipt, verifyHoldOffer } from "../../src/agent/index.js";
import { offerSha256 } from "../../src/protocol/schcp/offer/index.js";
import { ENDPOINT } from "./support/fake-host.js";
import { SLOT, discovered, openMandate, setup } from "./support/setup.js";

describe("SchcpClient against a fake host (SchCP §3.2, §5)", () => {
  it("walks availability -> hold -> confirm -> get -> cancel, every answer validated", async () => {
    const ctx = setup();
    const host = await discovered(ctx.client);
    const mandate = await openMandate(ctx);

    const avail = await ctx.client.availability(host, {
      service_id: "trim",
      window: { start: "2030-01-08T09:00:00-05:00", end: "2030-01-08T12:00:00-05:00" },
    });
    expect(avail.ok && avail.value.body.slots.length).toBe(6);

    const hold = await ctx.client.hold(
      host,
      { service_id: "trim", start: SLOT },
      { mandate: mandate.compact },
    );
    expect(hold.ok).toBe(true);
    if (!hold.ok) return;
    expect(hold.value.status).toBe(201);
    const offer = await verifyHoldOffer(hold.value.body, host);
    expect(offer.ok).toBe(true);
    if (!offer.ok) return;

    const again = await ctx.client.getHold(host, hold.value.body.hold_id, { mandate: mandate.compact });
    expect(again.ok && again.value.body.offer).toBe(hold.value.body.offer);

    const confirmed = await ctx.client.confirm(
      host,
      hold.value.body.hold_id,
      { offer_sha256: offer.value.offer.sha256 },
      { mandate: mandate.compact },
    );
    expect(confirmed.ok && confirmed.value.status).toBe(201);
    if (!confirmed.ok) return;
    const booking = await verifyBookingReceipt(confirmed.value.body, host, {
      offerSha256: offer.value.offer.sha256,
      mandateJti: mandate.jti,
      retention: offer.value.offer.claims.retention,
    });
    expect(booking.ok).toBe(true);
    if (!booking.ok) return;
    const id = booking.value.booking.booking_id;

    const read = await ctx.client.getBooking(host, id, { mandate: mandate.compact });
    expect(read.ok && read.value.body.booking.status).toBe("confirmed");

    const cancelled = await ctx.client.cancel(
      host,
      id,
      { reason: "plans changed" },
      { mandate: mandate.compact },
    );
    expect(cancelled.ok).toBe(true);
    if (!cancelled.ok) return;
    const after = await verifyBookingReceipt(cancelled.value.body, host, {
      bookingId: id,
      mandateJti: mandate.jti,
    });
    expect(after.ok && after.value.booking).toMatchObject({ status: "cancelled", sequence: 1 });
  });

  it("moves a booking with change-offer and reschedule (§5.7)", async () => {
    const ctx = setup();
    const host = await discovered(ctx.client);
    const mandate = await openMandate(ctx);
    const opts = { mandate: mandate.compact };
    const hold = await ctx.client.hold(host, { service_id: "trim", start: SLOT }, opts);
    if (!hold.ok) throw new Error(hold.error.message);
    const hash = offerSha256(hold.value.body.offer);
    const conf = await ctx.client.confirm(host, hold.value.body.hold_id, { offer_sha256: hash }, opts);
    if (!conf.ok) throw new Error(conf.error.message);
    const id = conf.value.body.booking.booking_id;

    const change = await ctx.client.changeOffer(
      host,
      id,
      { sequence: 0, start: "2030-01-08T11:00:00-05:00" },
      opts,
    );
    expect(change.ok && change.value.status).toBe(201);
    if (!change.ok) return;
    const changeHash = offerSha256(change.value.body.proposal.offer);

    const stale = await ctx.client.reschedule(host, id, { sequence: 5, offer_sha256: changeHash }, opts);
    expect(!stale.ok && stale.error.refusal?.code).toBe("STALE_SEQUENCE");

    const moved = await ctx.client.reschedule(host, id, { sequence: 0, offer_sha256: changeHash }, opts);
    expect(moved.ok).toBe(true);
    if (!moved.ok) return;
    const v = await verifyBookingReceipt(moved.value.body, host, { offerSha256: changeHash });
    expect(v.ok && v.value.booking).toMatchObject({ sequence: 1, start: "2030-01-08T11:00:00-05:00" });
  });

  it("signs each request freshly: created = the clock's second, a new nonce, the mandate covered (§3.2)", async () => {
    const ctx = setup();
    const host = await discovered(ctx.client);
    const mandate = await openMandate(ctx);
    ctx.host.requests.length = 0;
    await ctx.client.hold(host, { service_id: "trim", start: SLOT }, { mandate: mandate.compact });
    await ctx.client.availability(host, {
      service_id: "trim",
      window: { start: SLOT, end: "2030-01-08T11:00:00-05:00" },
    });
    const [holdReq, availReq] = ctx.host.requests;
    const input = holdReq!.headers.get("signature-input")!;
    expect(input).toMatch(
      new RegExp(
        `^schcp=\\("@method" "@target-uri" "content-digest" "schcp-mandate"\\);created=${Math.floor(ctx.host.clock.now() / 1000)};keyid="${ctx.agentKey.thumbprint}";nonce="[A-Za-z0-9_-]{22,}";alg="ed25519"$`,
      ),
    );
    expect(holdReq!.headers.get("schcp-mandate")).toBe(mandate.compact);
    expect(holdReq!.headers.get("content-type")).toBe("application/json");
    // No mandate given: none sent, none covered.
    expect(availReq!.headers.get("schcp-mandate")).toBeNull();
    expect(availReq!.headers.get("signature-input")).toMatch(
      /^schcp=\("@method" "@target-uri" "content-digest"\);/,
    );
    const nonce = (h: Headers) => /nonce="([^"]+)"/.exec(h.get("signature-input")!)![1];
    expect(nonce(holdReq!.headers)).not.toBe(nonce(availReq!.headers));
    expect(holdReq!.url).toBe(`${ENDPOINT}/holds`);
  });

  it("fills in an idempotency key, keeps the caller's, and sends the same bytes for a retry (§9.1)", async () => {
    const ctx = setup();
    const host = await discovered(ctx.client);
    const mandate = await openMandate(ctx);
    ctx.host.requests.length = 0;
    const body = { service_id: "trim", start: SLOT, idempotency_key: "retry-me-1" };
    await ctx.client.hold(host, body, { mandate: mandate.compact });
    await ctx.client.hold(
      host,
      { service_id: "trim", start: "2030-01-08T13:00:00-05:00" },
      { mandate: mandate.compact },
    );
    const digests = ctx.host.requests.map((r) => r.headers.get("content-digest"));
    const sent = await ctx.client.signedFetch({
      method: "POST",
      url: `${ENDPOINT}/holds`,
      body,
      mandate: mandate.compact,
    });
    expect(sent.ok).toBe(true);
    expect(ctx.host.requests.at(-1)!.headers.get("content-digest")).toBe(digests[0]);
    expect(digests[1]).not.toBe(digests[0]);
  });

  it("hands back the host's refusal with its code, reason and details (§9.2)", async () => {
    const ctx = setup();
    const host = await discovered(ctx.client);
    const mandate = await openMandate(ctx);
    const first = await ctx.client.hold(
      host,
      { service_id: "trim", start: SLOT },
      { mandate: mandate.compact },
    );
    expect(first.ok).toBe(true);
    const taken = await ctx.client.hold(
      host,
      { service_id: "trim", start: SLOT },
      { mandate: mandate.compact },
    );
    expect(taken.ok).toBe(false);
    if (taken.ok) return;
    expect(taken.error).toMatchObject({
      code: "refusal",
      status: 409,
      refusal: { code: "SLOT_UNAVAILABLE", reason: "slot_taken" },
    });
    expect((taken.error.refusal?.details?.alternatives as unknown[]).length).toBeGreaterThan(0);

    const noMandate = await ctx.client.hold(host, { service_id: "trim", start: "2030-01-08T14:00:00-05:00" });
    expect(!noMandate.ok && noMandate.error.refusal?.code).toBe("MANDATE_INVALID");
  });

  it("reports the host's own refusal of a bad signature, e.g. a key the mandate does not bind (§3.3 check 4)", async () => {
    const ctx = setup();
    const host = await discovered(ctx.client);
    const mandate = await openMandate(ctx);
    const thief = new SchcpClient({
      agentKey: createAgentKey(),
      fetch: ctx.host.fetch,
      clock: ctx.host.clock,
    });
    const r = await thief.hold(host, { service_id: "trim", start: SLOT }, { mandate: mandate.compact });
    expect(!r.ok && r.error.refusal).toMatchObject({ code: "MANDATE_INVALID", reason: "mandate_invalid" });
    const stale = await ctx.client.signedFetch({
      method: "GET",
      url: `${ENDPOINT}/holds/h_1`,
      created: Math.floor(ctx.host.clock.now() / 1000) - 301,
    });
    expect(stale.ok && stale.value.status).toBe(401);
  });

  it.each([
    [
      "a member the Hold schema does not define",
      { rewrite: (_r: string, b: Record<string, unknown>) => ({ ...b, cancellation_fee: "10.00" }) },
      "/cancellation_fee",
    ],
    [
      "a hold without its offer",
      { rewrite: (_r: string, b: Record<string, unknown>) => ({ ...b, offer: undefined }) },
      "/offer",
    ],
    [
      "duplicate members",
      { raw: (r: string) => (r === "hold" ? '{"hold_id":"h_1","hold_id":"h_2"}' : undefined) },
      "",
    ],
    ["no SchCP-Version", { omitVersion: true }, "SchCP-Version"],
  ])(
    "refuses a hold answer with %s (§5.2: an agent MUST refuse a hold that fails)",
    async (_label, misbehave, field) => {
      const ctx = setup();
      const host = await discovered(ctx.client);
      const mandate = await openMandate(ctx);
      Object.assign(ctx.host.misbehave, misbehave);
      const r = await ctx.client.hold(
        host,
        { service_id: "trim", start: SLOT },
        { mandate: mandate.compact },
      );
      expect(r.ok).toBe(false);
      if (!r.ok) {
        expect(r.error.code).toBe("invalid_response");
        if (field !== "") expect(r.error.field).toBe(field);
      }
    },
  );

  it("refuses an error status whose body is not a §9.2 refusal", async () => {
    const ctx = setup();
    const host = await discovered(ctx.client);
    ctx.host.misbehave.rewrite = (route, body) => (route === "refusal" ? { error: "nope" } : body);
    const r = await ctx.client.getHold(host, "h_missing");
    expect(!r.ok && r.error).toMatchObject({ code: "invalid_response", status: 404 });
  });

  it("refuses a booking response that fails the closed BookingResponse schema (§5.3)", async () => {
    const ctx = setup();
    const host = await discovered(ctx.client);
    const mandate = await openMandate(ctx);
    const hold = await ctx.client.hold(
      host,
      { service_id: "trim", start: SLOT },
      { mandate: mandate.compact },
    );
    if (!hold.ok) throw new Error(hold.error.message);
    ctx.host.misbehave.rewrite = (route, body) =>
      route === "confirm"
        ? { ...body, booking: { ...(body.booking as object), deposit: { amount: "5.00", currency: "CAD" } } }
        : body;
    const r = await ctx.client.confirm(
      host,
      hold.value.body.hold_id,
      { offer_sha256: offerSha256(hold.value.body.offer) },
      { mandate: mandate.compact },
    );
    expect(!r.ok && r.error).toMatchObject({ code: "invalid_response", field: "/booking/deposit" });
  });

  it("reads Retry-After as seconds", async () => {
    const client = new SchcpClient({
      agentKey: createAgentKey(),
      fetch: () =>
        Promise.resolve(
          new Response(
            JSON.stringify({ error: { code: "RATE_LIMITED", reason: "rate_limited", message: "slow down" } }),
            {
              status: 429,
              headers: { "schcp-version": "0.4", "retry-after": "7" },
            },
          ),
        ),
    });
    const r = await client.availability(
      { endpoint: ENDPOINT },
      { service_id: "trim", window: { start: SLOT, end: SLOT } },
    );
    expect(!r.ok && r.error).toMatchObject({ code: "refusal", status: 429, retryAfterSec: 7 });
  });

  it("never follows a redirect with a signed request (§3.2: the signature covers @target-uri)", async () => {
    const inits: RequestInit[] = [];
    const client = new SchcpClient({
      agentKey: createAgentKey(),
      fetch: (_url, init) => {
        inits.push(init ?? {});
        return Promise.resolve(
          new Response(null, { status: 307, headers: { location: "https://elsewhere.example/steal" } }),
        );
      },
    });
    const r = await client.availability(
      { endpoint: ENDPOINT },
      { service_id: "trim", window: { start: SLOT, end: SLOT } },
    );
    expect(inits.map((i) => i.redirect)).toEqual(["manual"]);
    expect(!r.ok && r.error).toMatchObject({ code: "invalid_response", status: 307 });
  });
});
