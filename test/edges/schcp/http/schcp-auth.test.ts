/** Authentication at the edge: request signatures (§3.2), mandates (§3.3), the availability rate limit (§7.2). */
import { describe, expect, it } from "vitest";
import { createHttpApp } from "../../../../src/gateway/app/app.js";
import * as ex from "../../../protocol/schcp/schemas/spec-examples.js";
import { mandateFor, newKey, signedInit, thumb } from "../../../gateway/support/agent.js";
import { DEFAULT_POLICIES, NOW_MS, ORIGIN, edgeFixture, hostConfig } from "../../../gateway/support/fakes.js";
import {
  BASE,
  HOST,
  NOW_SEC,
  ROUTES,
  agent,
  call,
  expectRefusal,
  principal,
} from "../../../gateway/support/edge-call.js";

describe("request signatures (§3.2)", () => {
  const hold = { method: "POST", path: `${BASE}/holds`, body: ex.holdRequest() };

  it("refuses an unsigned request with 401 BAD_SIGNATURE", async () => {
    const app = createHttpApp(edgeFixture().deps);
    const res = await app.request(`${BASE}/holds`, {
      method: "POST",
      body: JSON.stringify(ex.holdRequest()),
    });
    expect(res.status).toBe(401);
    expectRefusal(await res.json(), "BAD_SIGNATURE", "bad_signature");
  });

  it("refuses a signature created more than 300 s away as stale_signature", async () => {
    const f = edgeFixture();
    for (const created of [NOW_SEC - 301, NOW_SEC + 301]) {
      const { status, json } = await call(f, { ...hold, created });
      expect(status).toBe(401);
      expectRefusal(json, "BAD_SIGNATURE", "stale_signature");
    }
    expect((await call(f, { ...hold, created: NOW_SEC - 300 })).status).toBe(201);
  });

  it("refuses a replayed nonce, and a forged request cannot spend one (replayed_nonce)", async () => {
    const f = edgeFixture();
    const nonce = "AAAAAAAAAAAAAAAAAAAAAA";
    // A forged request (tampered body) with the nonce fails first and does not remember it.
    const forged = await call(f, { ...hold, nonce, headers: { "content-digest": "sha-256=:AAAA:" } });
    expect(forged.status).toBe(401);
    expect((await call(f, { ...hold, nonce })).status).toBe(201);
    const replay = await call(f, { ...hold, nonce });
    expect(replay.status).toBe(401);
    expectRefusal(replay.json, "BAD_SIGNATURE", "replayed_nonce");
    expect(f.api.calls).toHaveLength(1);
  });

  it("refuses a body that is not the signed one (Content-Digest recomputed)", async () => {
    const f = edgeFixture();
    const app = createHttpApp(f.deps);
    const init = signedInit({ ...hold, agent, created: NOW_SEC, signedOrigin: ORIGIN });
    const res = await app.request(`${BASE}/holds`, {
      ...init,
      body: JSON.stringify({ ...ex.holdRequest(), ttl: "PT9M" }),
    });
    expect(res.status).toBe(401);
    expectRefusal(await res.json(), "BAD_SIGNATURE", "bad_signature");
  });

  it("rebuilds @target-uri from the configured origin, never the Host header", async () => {
    const f = edgeFixture();
    // Addressed through any Host (a proxy hop, a spoofed header): the signed public URL verifies.
    const spoofed = await call(f, {
      ...hold,
      requestOrigin: "http://evil.example:9999",
      headers: { host: "evil.example", "x-forwarded-host": "evil.example" },
    });
    expect(spoofed.status).toBe(201);
    // A signature over the Host the request arrived with does not.
    const hostSigned = await call(f, {
      ...hold,
      signedOrigin: "http://evil.example",
      requestOrigin: "http://evil.example",
    });
    expect(hostSigned.status).toBe(401);
    expectRefusal(hostSigned.json, "BAD_SIGNATURE", "bad_signature");
  });

  it("covers the query string: a changed query fails", async () => {
    const f = edgeFixture();
    const app = createHttpApp(f.deps);
    const init = signedInit({
      ...hold,
      path: `${BASE}/holds?a=1`,
      agent,
      created: NOW_SEC,
      signedOrigin: ORIGIN,
    });
    const res = await app.request(`${BASE}/holds?a=2`, init);
    expect(res.status).toBe(401);
  });

  it("authenticates before it reads the body: an unsigned malformed body is 401, not 400", async () => {
    const app = createHttpApp(edgeFixture().deps);
    const res = await app.request(`${BASE}/holds`, { method: "POST", body: '{"a":1,"a":2}' });
    expect(res.status).toBe(401);
  });
});

describe("mandates (§3.3)", () => {
  it("refuses a hold, confirm or booking call without a mandate: 401 MANDATE_INVALID", async () => {
    for (const r of ROUTES.filter((x) => x.use !== "availability")) {
      const f = edgeFixture();
      const { status, json } = await call(f, {
        method: r.method,
        path: BASE + r.path,
        body: r.body,
        mandate: null,
      });
      expect(status, r.use).toBe(401);
      expectRefusal(json, "MANDATE_INVALID", "mandate_invalid");
      expect(f.api.calls).toHaveLength(0);
    }
  });

  it("lets availability go without a mandate (§5.1), with the agent key as the caller", async () => {
    const f = edgeFixture();
    const { status } = await call(f, {
      method: "POST",
      path: `${BASE}/availability`,
      body: ex.availabilityRequest(),
      mandate: null,
    });
    expect(status).toBe(200);
    expect(f.api.calls[0]?.caller).toEqual({ agentKey: thumb(agent) });
  });

  it("lets anonymous holds through where requires_mandate is false (§7.1), but confirm still needs one", async () => {
    const policies = { ...DEFAULT_POLICIES, holds: { ...DEFAULT_POLICIES.holds, requiresMandate: false } };
    const f = edgeFixture({ hosts: [hostConfig(HOST, { policies })] });
    expect(
      (await call(f, { method: "POST", path: `${BASE}/holds`, body: ex.holdRequest(), mandate: null }))
        .status,
    ).toBe(201);
    expect((await call(f, { method: "GET", path: `${BASE}/holds/h_1`, mandate: null })).status).toBe(200);
    const confirm = await call(f, {
      method: "POST",
      path: `${BASE}/holds/h_1/confirm`,
      body: ex.confirmRequest(),
      mandate: null,
    });
    expect(confirm.status).toBe(401);
  });

  it("verifies the mandate for the host in the path (aud, exp, cnf.jkt)", async () => {
    const f = edgeFixture();
    const hold = { method: "POST", path: `${BASE}/holds`, body: ex.holdRequest() };
    const otherHost = await mandateFor({ principal, agent, aud: "fades-on-queen", nowSec: NOW_SEC });
    expectRefusal(
      (await call(f, { ...hold, mandate: otherHost })).json,
      "MANDATE_INVALID",
      "mandate_invalid",
    );
    const expired = await mandateFor({
      principal,
      agent,
      aud: HOST,
      nowSec: NOW_SEC,
      over: { exp: NOW_SEC - 1 },
    });
    const r = await call(f, { ...hold, mandate: expired });
    expect(r.status).toBe(401);
    expectRefusal(r.json, "MANDATE_INVALID", "mandate_expired");
    const forOtherAgent = await mandateFor({ principal, agent: newKey(), aud: HOST, nowSec: NOW_SEC });
    expectRefusal(
      (await call(f, { ...hold, mandate: forOtherAgent })).json,
      "MANDATE_INVALID",
      "mandate_invalid",
    );
    // The same mandate at the host it names passes: the host comes from the path.
    const good = await mandateFor({ principal, agent, aud: "fades-on-queen", nowSec: NOW_SEC });
    expect((await call(f, { ...hold, path: "/schcp/v0/fades-on-queen/holds", mandate: good })).status).toBe(
      201,
    );
    expect(f.api.calls.map((c) => c.hostId)).toEqual(["fades-on-queen"]);
  });

  it("refuses a wildcard audience unless the host's policy allows it (§3.3 check 2)", async () => {
    const wildcard = await mandateFor({ principal, agent, aud: "*", nowSec: NOW_SEC });
    const hold = { method: "POST", path: `${BASE}/holds`, body: ex.holdRequest(), mandate: wildcard };
    expect((await call(edgeFixture(), hold)).status).toBe(401);
    const policies = { ...DEFAULT_POLICIES, allowWildcardAudience: true };
    expect((await call(edgeFixture({ hosts: [hostConfig(HOST, { policies })] }), hold)).status).toBe(201);
  });

  it("still verifies a mandate sent where none is required", async () => {
    const f = edgeFixture();
    const r = await call(f, {
      method: "POST",
      path: `${BASE}/availability`,
      body: ex.availabilityRequest(),
      mandate: "not.a.jws",
    });
    expect(r.status).toBe(401);
    expectRefusal(r.json, "MANDATE_INVALID");
  });
});

describe("availability rate limit (§7.2)", () => {
  const availability = (path = `${BASE}/availability`) => ({
    method: "POST",
    path,
    body: ex.availabilityRequest(),
    mandate: null,
  });

  it("answers 429 RATE_LIMITED with Retry-After once the agent's bucket is empty, across all hosts", async () => {
    const f = edgeFixture({ rate: { capacity: 2, refillPerSec: 0.5 } });
    expect((await call(f, availability())).status).toBe(200);
    expect((await call(f, availability("/schcp/v0/fades-on-queen/availability"))).status).toBe(200);
    // A third query at another host still draws on the same allowance.
    const limited = await call(f, availability());
    expect(limited.status).toBe(429);
    expectRefusal(limited.json, "RATE_LIMITED", "rate_limited");
    expect(limited.res.headers.get("retry-after")).toBe("2");
    expect(limited.json).toMatchObject({ error: { retry: { after: "PT2S" } } });
    // Another agent key has its own bucket.
    expect((await call(f, { ...availability(), signer: newKey() })).status).toBe(200);
    // Holds are not availability queries.
    expect((await call(f, { method: "POST", path: `${BASE}/holds`, body: ex.holdRequest() })).status).toBe(
      201,
    );
    // Tokens come back with time.
    f.clock.set(NOW_MS + 2000);
    expect((await call(f, { ...availability(), created: NOW_SEC + 2 })).status).toBe(200);
  });

  it("charges only verified requests: a bad signature spends nothing", async () => {
    const f = edgeFixture({ rate: { capacity: 1, refillPerSec: 0.01 } });
    const bad = await call(f, { ...availability(), headers: { "content-digest": "sha-256=:AAAA:" } });
    expect(bad.status).toBe(401);
    expect((await call(f, availability())).status).toBe(200);
  });
});
