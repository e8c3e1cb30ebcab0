/**
 * The host endpoint's edge translation (SchCP §2, §5, §9.2) against a fake SchcpHostApi:
 * discovery, routing to the use cases, refusal mapping, response validation.
 */
import { describe, expect, it } from "vitest";
import { createHttpApp } from "../../../../src/gateway/app/app.js";
import { validateSchcp } from "../../../../src/protocol/schcp/validate.js";
import * as ex from "../../../protocol/schcp/schemas/spec-examples.js";
import { issOf, thumb } from "../../../gateway/support/agent.js";
import { edgeFixture, hostConfig } from "../../../gateway/support/fakes.js";
import {
  BASE,
  HOST,
  ROUTES,
  agent,
  call,
  expectRefusal,
  principal,
} from "../../../gateway/support/edge-call.js";

describe("discovery (SchCP §2.1, §2.3, §3.1)", () => {
  it("serves the operator document and each host's discovery document with SchCP-Version", async () => {
    const app = createHttpApp(edgeFixture().deps);
    const op = await app.request("/.well-known/scheduling.json");
    expect(op.status).toBe(200);
    expect(op.headers.get("schcp-version")).toBe("0.4");
    expect(validateSchcp("OperatorDocument", await op.json()).ok).toBe(true);
    const host = await app.request(`/hosts/${HOST}/scheduling.json`);
    expect(host.status).toBe(200);
    expect(host.headers.get("schcp-version")).toBe("0.4");
    expect(await host.json()).toMatchObject({ host: { id: HOST } });
  });

  it("answers an unknown host and an unknown route with 404 NOT_FOUND, versioned", async () => {
    const app = createHttpApp(edgeFixture().deps);
    for (const path of ["/hosts/nobody/scheduling.json", "/nope", "/schcp/v0/nobody/holds"]) {
      const res = await app.request(path, { method: path.endsWith("holds") ? "POST" : "GET" });
      expect(res.status).toBe(404);
      expect(res.headers.get("schcp-version")).toBe("0.4");
      expectRefusal(await res.json(), "NOT_FOUND", "not_found");
    }
  });
});

/** Every SchCP route, with a valid body, the use case it reaches and its closed response schema. */
describe("SchCP routes (§5)", () => {
  for (const r of ROUTES) {
    it(`${r.method} ${r.path} reaches ${r.use} with the verified caller and answers ${r.status}`, async () => {
      const f = edgeFixture();
      const { status, json, res } = await call(f, { method: r.method, path: BASE + r.path, body: r.body });
      expect(status).toBe(r.status);
      expect(res.headers.get("schcp-version")).toBe("0.4");
      expect(res.headers.get("content-type")).toMatch(/^application\/json/);
      expect(validateSchcp(r.schema, json).ok).toBe(true);
      expect(f.api.calls).toHaveLength(1);
      const [c] = f.api.calls;
      expect(c).toMatchObject({ method: r.use, hostId: HOST, args: r.args });
      expect(c?.caller?.agentKey).toBe(thumb(agent));
      expect(c?.caller?.mandate?.principal).toBe(issOf(principal));
      // §9.1: every mutating POST goes through idempotency; DELETE /holds/{id} is exempt.
      expect(f.gate.requests.map((q) => q.route)).toEqual(r.idempotent ? [r.use] : []);
    });
  }

  it("passes the idempotency key, body bytes, agent and path to the idempotency gate (§9.1)", async () => {
    const f = edgeFixture();
    await call(f, { method: "POST", path: `${BASE}/holds?x=1`, body: ex.holdRequest() });
    const [q] = f.gate.requests;
    expect(q).toMatchObject({
      route: "placeHold",
      hostId: HOST,
      idempotencyKey: ex.holdRequest().idempotency_key,
      method: "POST",
      path: `${BASE}/holds?x=1`,
    });
    expect(new TextDecoder().decode(q?.body)).toBe(JSON.stringify(ex.holdRequest()));
    expect(q?.caller.agentKey).toBe(thumb(agent));
  });

  it("answers 202 when confirm says pending_host (§5.3)", async () => {
    const f = edgeFixture();
    f.api.answers["confirm"] = { ok: true, value: { status: 202, body: ex.bookingResponse() } };
    const { status } = await call(f, {
      method: "POST",
      path: `${BASE}/holds/h_1/confirm`,
      body: ex.confirmRequest(),
    });
    expect(status).toBe(202);
  });

  it("refuses a body on a bodiless route", async () => {
    const f = edgeFixture();
    const { status, json } = await call(f, { method: "DELETE", path: `${BASE}/holds/h_1`, body: { x: 1 } });
    expect(status).toBe(400);
    expectRefusal(json, "INVALID_REQUEST", "invalid_request");
    expect(f.api.calls).toHaveLength(0);
  });
});

describe("refusal mapping (§9.2)", () => {
  it("maps a BookingRefusal to its status, body, Retry-After and the host's contact remedy", async () => {
    const contact = { phone: "+1-416-555-0177", url: "https://maplestreetauto.example/contact" };
    const f = edgeFixture({ hosts: [hostConfig(HOST, { contact })] });
    f.api.refuse("placeHold", {
      code: "hold_limit",
      reason: "new_guest_pool_full",
      message: "too many holds from new guests right now",
      basis: { policy: "holds.max_active_unproven", limit: 8 },
      retryAfterMs: 59_001,
      remedies: [{ type: "attest", attesters: ["phonecheck.example"] }],
    });
    const { status, json, res } = await call(f, {
      method: "POST",
      path: `${BASE}/holds`,
      body: ex.holdRequest(),
    });
    expect(status).toBe(429);
    expect(res.headers.get("retry-after")).toBe("60");
    expectRefusal(json, "HOLD_LIMIT", "new_guest_pool_full");
    expect(json).toEqual({
      error: {
        code: "HOLD_LIMIT",
        reason: "new_guest_pool_full",
        message: "too many holds from new guests right now",
        basis: { policy: "holds.max_active_unproven", limit: 8 },
        retry: { after: "PT1M" },
        remedies: [
          { type: "attest", attesters: ["phonecheck.example"] },
          { type: "contact", phone: contact.phone, url: contact.url },
        ],
      },
    });
  });

  it("adds the contact remedy to the edge's own refusals, and none when the host publishes no contact", async () => {
    const f = edgeFixture({
      hosts: [hostConfig(HOST, { contact: { phone: "+1-416-555-0177" } }), hostConfig("fades-on-queen")],
    });
    const unsigned = await createHttpApp(f.deps).request(`${BASE}/holds`, { method: "POST" });
    expect(await unsigned.json()).toMatchObject({
      error: { remedies: [{ type: "contact", phone: "+1-416-555-0177" }] },
    });
    const other = await createHttpApp(f.deps).request("/schcp/v0/fades-on-queen/holds", { method: "POST" });
    expect((await other.json()) as object).not.toHaveProperty("error.remedies");
  });

  it("maps a SLOT_UNAVAILABLE with alternatives and a CONTRACT_MISMATCH with details", async () => {
    const f = edgeFixture();
    f.api.refuse("confirm", {
      code: "contract_mismatch",
      reason: "contract_mismatch",
      message: "the hash does not name the hold's offer",
      details: { offer_sha256: ex.SHA },
    });
    const r = await call(f, { method: "POST", path: `${BASE}/holds/h_1/confirm`, body: ex.confirmRequest() });
    expect(r.status).toBe(409);
    expect(r.json).toMatchObject({ error: { code: "CONTRACT_MISMATCH", details: { offer_sha256: ex.SHA } } });
  });

  it("turns an unregistered reason from the core into a logged 500, never onto the wire", async () => {
    const f = edgeFixture();
    f.api.refuse("getHold", { code: "not_found", reason: "gone_fishing", message: "x" });
    const r = await call(f, { method: "GET", path: `${BASE}/holds/h_1` });
    expect(r.status).toBe(500);
    expectRefusal(r.json, "INTERNAL_ERROR");
    expect(f.logger.lines.some((l) => l.level === "error")).toBe(true);
  });
});

describe("response validation (closed response schemas)", () => {
  it("replaces a response that fails its closed schema with a 500 and a log line", async () => {
    const f = edgeFixture();
    f.api.answers["placeHold"] = {
      ok: true,
      value: { ...ex.hold(), deposit: { amount: "10.00", currency: "CAD" } },
    };
    const r = await call(f, { method: "POST", path: `${BASE}/holds`, body: ex.holdRequest() });
    expect(r.status).toBe(500);
    expect(r.text).not.toMatch(/deposit/);
    const logged = f.logger.lines.find((l) => l.level === "error");
    expect(logged?.fields).toMatchObject({ schema: "Hold", field: "/deposit" });
  });

  it("passes responses through unchecked when validation is off (production)", async () => {
    const f = edgeFixture({ validateResponses: false });
    f.api.answers["placeHold"] = { ok: true, value: { ...ex.hold(), extra: 1 } };
    expect((await call(f, { method: "POST", path: `${BASE}/holds`, body: ex.holdRequest() })).status).toBe(
      201,
    );
  });

  it("answers 503 with Retry-After when the store is unavailable", async () => {
    const { HoldStoreUnavailableError } = await import("../../../../src/holds/port.js");
    const f = edgeFixture();
    f.api.answers["getHold"] = () => {
      throw new HoldStoreUnavailableError("redis down");
    };
    const r = await call(f, { method: "GET", path: `${BASE}/holds/h_1` });
    expect(r.status).toBe(503);
    expect(r.res.headers.get("retry-after")).toBe("1");
    expect(r.res.headers.get("schcp-version")).toBe("0.4");
    expectRefusal(r.json, "UPSTREAM_UNAVAILABLE");
  });
});
