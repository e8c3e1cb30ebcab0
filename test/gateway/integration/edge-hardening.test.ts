/**
 * Over real HTTP on loopback (found by an adversarial run):
 * - SchCP §7.2 "rate-limit by network origin before verifying signatures": fresh agent keys
 *   are free, so one origin is limited whatever keys it signs with, and even unsigned or
 *   badly signed requests spend its allowance; 429 RATE_LIMITED with Retry-After (§9.2).
 *   X-Forwarded-For counts only when the gateway is told to trust its proxy. With Redis the
 *   allowance is shared by every gateway process.
 * - §5.8: a callback_url no delivery could ever reach is refused at the request (400 naming
 *   /callback_url), not accepted with 201 and refused at each delivery; a host name is
 *   accepted (only the connect-time check can judge it).
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { validateSchcp } from "../../../src/protocol/schcp/validate.js";
import { clientKey } from "../../../src/edges/http/origin-limit.js";
import { startTestRedis, uniquePrefix } from "../../support/redis.js";
import type { TestRedis } from "../../support/redis.js";
import { mandateFor, newKey } from "../support/agent.js";
import { agentFetch, startGateway } from "../support/gateway.js";
import type { AgentResponse, TestGateway } from "../support/gateway.js";

const MAPLE = "/schcp/v0/maple-street-auto";
/** Wednesday 14 October 2026 (Toronto), a morning window. */
const WINDOW = { start: "2026-10-14T09:00:00-04:00", end: "2026-10-14T12:00:00-04:00" };
/** Effectively no refill within a test: the burst is all an origin gets. */
const TIGHT = { capacity: 3, refillPerSec: 0.001 };

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "gw-edge-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function expectRefusal(r: AgentResponse, status: number, code: string): void {
  expect(r.status, JSON.stringify(r.json)).toBe(status);
  expect(validateSchcp("Refusal", r.json).ok).toBe(true);
  expect(r.json).toMatchObject({ error: { code } });
}

const availability = (gw: TestGateway, headers?: Record<string, string>) =>
  agentFetch(gw, newKey(), {
    method: "POST",
    path: `${MAPLE}/availability`,
    body: { service_id: "oil-change", window: WINDOW },
    ...(headers !== undefined && { headers }),
  });

/** A request without any signature: 401 unless the origin is already over its allowance. */
const unsigned = (gw: TestGateway, headers: Record<string, string> = {}) =>
  fetch(`${gw.url}${MAPLE}/availability`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify({ service_id: "oil-change", window: WINDOW }),
  });

describe("§7.2 rate limit per network origin, before signature checks", () => {
  it("limits one origin whatever agent keys it uses, counting unsigned requests, with 429 and Retry-After", async () => {
    const gw = await startGateway({ dataDir: dir, originRate: TIGHT });
    try {
      expect((await availability(gw)).status).toBe(200);
      expect((await unsigned(gw)).status).toBe(401);
      expect((await availability(gw)).status).toBe(200);
      // Over: a fresh key with a valid signature is refused, and so is an unsigned request,
      // which shows the refusal comes before any signature is looked at.
      const limited = await availability(gw);
      expectRefusal(limited, 429, "RATE_LIMITED");
      expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
      expect(limited.json).toMatchObject({
        error: { reason: "rate_limited", basis: { policy: "rate limit per network origin" } },
      });
      // §9.2: the host's published contact remedy, as on every refusal.
      expect((limited.json as { error: { remedies: unknown[] } }).error.remedies).toContainEqual({
        type: "contact",
        phone: "+1-416-555-0177",
      });
      expect((await unsigned(gw)).status).toBe(429);
      // Discovery and the operator API are not SchCP host-endpoint requests: still served.
      expect((await fetch(`${gw.url}/hosts/maple-street-auto/scheduling.json`)).status).toBe(200);
    } finally {
      await gw.close();
    }
  });

  it("ignores X-Forwarded-For unless told to trust the proxy; then each forwarded client has its own allowance", async () => {
    const direct = await startGateway({ dataDir: dir, originRate: TIGHT });
    try {
      for (let i = 0; i < 3; i++)
        expect((await unsigned(direct, { "x-forwarded-for": `198.51.100.${i}` })).status).toBe(401);
      expect((await unsigned(direct, { "x-forwarded-for": "198.51.100.9" })).status).toBe(429);
    } finally {
      await direct.close();
    }
    const proxied = await startGateway({ dataDir: dir, originRate: TIGHT, trustForwardedFor: true });
    try {
      const via = (client: string) => ({ "x-forwarded-for": `203.0.113.50, ${client}` });
      for (let i = 0; i < 3; i++) expect((await unsigned(proxied, via("192.0.2.1"))).status).toBe(401);
      expect((await unsigned(proxied, via("192.0.2.1"))).status).toBe(429);
      // The entry the client wrote first does not choose the bucket; the proxy's last entry does.
      expect((await unsigned(proxied, { "x-forwarded-for": "192.0.2.1, 192.0.2.2" })).status).toBe(401);
      expect((await availability(proxied, via("192.0.2.3"))).status).toBe(200);
    } finally {
      await proxied.close();
    }
  });

  it("keys a client by its address: IPv4 as it is (also IPv4-mapped), IPv6 by its /64", () => {
    expect(clientKey("192.0.2.7")).toBe("192.0.2.7");
    expect(clientKey("::ffff:192.0.2.7")).toBe("192.0.2.7");
    expect(clientKey("2001:db8:1:2:aaaa::1")).toBe(clientKey("[2001:0DB8:1:2:ffff:1:2:3]"));
    expect(clientKey("2001:db8:1:2::1")).not.toBe(clientKey("2001:db8:1:3::1"));
    expect(clientKey("::1")).toBe("0:0:0:0::/64");
  });

  describe("with Redis", () => {
    let redis: TestRedis;
    beforeAll(async () => {
      redis = await startTestRedis();
    });
    afterAll(async () => {
      await redis.stop();
    });

    it("shares one origin's allowance across gateway processes", async () => {
      const common = {
        dataDir: dir,
        redisUrl: redis.url,
        redisKeyPrefix: uniquePrefix("origin"),
        originRate: TIGHT,
      };
      const a = await startGateway(common);
      const b = await startGateway(common);
      try {
        expect((await unsigned(a)).status).toBe(401);
        expect((await unsigned(b)).status).toBe(401);
        expect((await unsigned(a)).status).toBe(401);
        expect((await unsigned(b)).status).toBe(429);
        expect((await unsigned(a)).status).toBe(429);
      } finally {
        await Promise.allSettled([a.close(), b.close()]);
      }
    });
  });
});

describe("§5.8 a callback_url that can never be delivered to is refused at the request", () => {
  let gw: TestGateway;
  let permissive: TestGateway;
  beforeAll(async () => {
    gw = await startGateway({ dataDir: dir });
    permissive = await startGateway({ dataDir: dir, allowPrivateCallbacksForTests: true });
  });
  afterAll(async () => {
    await Promise.allSettled([gw.close(), permissive.close()]);
  });

  async function holdWith(target: TestGateway, callback_url: string): Promise<AgentResponse> {
    const agent = newKey();
    const slots = await agentFetch(target, agent, {
      method: "POST",
      path: `${MAPLE}/availability`,
      body: { service_id: "oil-change", window: WINDOW },
    });
    const start = (slots.json as { slots: Array<{ start: string }> }).slots[0]?.start;
    expect(start).toBeDefined();
    const mandate = await mandateFor({
      principal: newKey(),
      agent,
      aud: "maple-street-auto",
      nowSec: target.clock.sec,
    });
    return agentFetch(target, agent, {
      method: "POST",
      path: `${MAPLE}/holds`,
      mandate,
      body: { service_id: "oil-change", start, idempotency_key: `k-${Math.random()}`, callback_url },
    });
  }

  it.each([
    ["a loopback literal", "https://127.0.0.1/hooks"],
    ["an IPv6 loopback literal", "https://[::1]/hooks"],
    ["a private literal", "https://10.1.2.3/hooks"],
    ["a link-local literal (cloud metadata)", "https://169.254.169.254/latest"],
    ["an IPv4-mapped loopback", "https://[::ffff:127.0.0.1]/hooks"],
    ["credentials in the URL", "https://user:secret@agent.example/hooks"],
  ])("%s: 400 INVALID_REQUEST naming /callback_url, and no hold", async (_why, url) => {
    const r = await holdWith(gw, url);
    expectRefusal(r, 400, "INVALID_REQUEST");
    expect(r.json).toMatchObject({ error: { details: { field: "/callback_url" } } });
  });

  it("a scheme other than https is refused too (the closed schema, §5.8)", async () => {
    const r = await holdWith(gw, "http://agent.example/hooks");
    expectRefusal(r, 400, "INVALID_REQUEST");
  });

  it("accepts a host name (judged at connect time) and a public literal", async () => {
    expect((await holdWith(gw, "https://agent.example/hooks")).status).toBe(201);
    expect((await holdWith(gw, "https://8.8.8.8/hooks")).status).toBe(201);
  });

  it("keeps a way for tests to name a loopback callback (allowPrivateCallbacksForTests)", async () => {
    expect((await holdWith(permissive, "https://127.0.0.1/hooks")).status).toBe(201);
    expect((await holdWith(permissive, "https://user:secret@127.0.0.1/hooks")).status).toBe(400);
  });
});
