/**
 * Retry-After honoured across calls (connectors/http/pacing.ts): after a 429 (RFC 6585 §4) or a
 * 5xx with Retry-After (RFC 9110 §10.2.3), the account's calls are answered rate_limited with the
 * remaining wait and nothing is sent, on both of the client's paths (request, and the fetch an
 * SDK calls); the gate only moves later, and in Redis it is shared by processes.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createUpstreamClient } from "../../../src/connectors/http.js";
import { MAX_PACING_MS, MemoryPacingGate } from "../../../src/connectors/http/pacing.js";
import { RedisPacingGate } from "../../../src/gateway/runtime/redis-pacing.js";
import { openRedis, type RedisClient } from "../../../src/redis/client.js";
import { dropPrefix, startTestRedis, uniquePrefix, type TestRedis } from "../../support/redis.js";

const BASE = "https://api.example.test";

/** A platform that answers each request from a queue of statuses, and counts what it was sent. */
function platform(answers: Array<{ status: number; headers?: Record<string, string> }>) {
  const sent: string[] = [];
  const fetch = ((input: string | URL | Request) => {
    const url = input instanceof Request ? input.url : String(input);
    sent.push(url);
    const next = answers.shift() ?? { status: 200 };
    return Promise.resolve(
      new Response(next.status === 200 ? "{}" : '{"errors":[]}', {
        status: next.status,
        headers: { "content-type": "application/json", ...next.headers },
      }),
    );
  }) as typeof globalThis.fetch;
  return { sent, fetch };
}

function client(
  fetch: typeof globalThis.fetch,
  gate: MemoryPacingGate,
  clock: { t: number },
  account = "acct-1",
) {
  return createUpstreamClient({
    vendor: "example",
    apiVersion: "2026-01-01",
    baseUrl: BASE,
    pin: { header: "example-version", value: "2026-01-01" },
    fetch,
    clock: { now: () => clock.t },
    logger: { warn: () => undefined },
    pacing: { gate, account },
  });
}

describe("the upstream client heeds Retry-After across calls", () => {
  it("answers rate_limited with the remaining wait and sends nothing until the time named", async () => {
    const clock = { t: Date.parse("2026-12-05T12:00:00Z") };
    const gate = new MemoryPacingGate();
    const up = platform([{ status: 429, headers: { "retry-after": "5" } }]);
    const c = client(up.fetch, gate, clock);
    const first = await c.request({ method: "get", path: "/slots" });
    expect(first.ok).toBe(false);
    expect(!first.ok && first.error).toMatchObject({ code: "rate_limited", retryAfterMs: 5_000 });
    expect(up.sent).toHaveLength(1);

    clock.t += 2_000;
    // Another client (another host, another caller) on the same account is held back too.
    const other = client(up.fetch, gate, clock);
    const held = await other.request({ method: "post", path: "/bookings", body: {} });
    expect(!held.ok && held.error).toMatchObject({ code: "rate_limited", retryAfterMs: 3_000 });
    expect(up.sent).toHaveLength(1);

    // Another account is not.
    const elsewhere = await client(up.fetch, gate, clock, "acct-2").request({
      method: "get",
      path: "/slots",
    });
    expect(elsewhere.ok).toBe(true);
    expect(up.sent).toHaveLength(2);

    clock.t += 3_000;
    expect((await c.request({ method: "get", path: "/slots" })).ok).toBe(true);
    expect(up.sent).toHaveLength(3);
  });

  it("holds the SDK path back too, and reports it as rate_limited", async () => {
    const clock = { t: Date.parse("2026-12-05T12:00:00Z") };
    const gate = new MemoryPacingGate();
    const up = platform([{ status: 429, headers: { "retry-after": "10" } }]);
    const c = client(up.fetch, gate, clock);
    const first = await c.withCapture(() => c.fetch(`${BASE}/v2/slots`));
    expect(first.ok && first.value.status).toBe(429);
    clock.t += 4_000;
    const held = await c.withCapture(() => c.fetch(`${BASE}/v2/slots`));
    expect(held.ok).toBe(false);
    expect(up.sent).toHaveLength(1);
    expect(c.errorOf(held.calls.at(-1)!)).toMatchObject({ code: "rate_limited", retryAfterMs: 6_000 });
  });

  it("a 503 with Retry-After holds back; a 503 without one, or a 500, does not; a bare 429 holds back a second", async () => {
    const clock = { t: Date.parse("2026-12-05T12:00:00Z") };
    const gate = new MemoryPacingGate();
    const up = platform([
      { status: 503 },
      { status: 500 },
      { status: 503, headers: { "retry-after": "2" } },
      { status: 429 },
    ]);
    const c = client(up.fetch, gate, clock);
    await c.request({ method: "get", path: "/a" });
    await c.request({ method: "get", path: "/a" });
    await c.request({ method: "get", path: "/a" });
    expect(up.sent).toHaveLength(3);
    const held = await c.request({ method: "get", path: "/a" });
    expect(!held.ok && held.error).toMatchObject({ code: "rate_limited", retryAfterMs: 2_000 });
    clock.t += 2_000;
    await c.request({ method: "get", path: "/a" }); // the bare 429
    expect(up.sent).toHaveLength(4);
    const bare = await c.request({ method: "get", path: "/a" });
    expect(!bare.ok && bare.error).toMatchObject({ code: "rate_limited", retryAfterMs: 1_000 });
  });
});

describe("pacing gates", () => {
  it("only ever move a time later, and cap what an upstream can ask for", async () => {
    const gate = new MemoryPacingGate();
    await gate.defer("k", 5_000, 0);
    await gate.defer("k", 3_000, 0);
    expect(await gate.notBefore("k", 0)).toBe(5_000);
    await gate.defer("k", 10 * 24 * 3_600_000, 0);
    expect(await gate.notBefore("k", 0)).toBe(MAX_PACING_MS);
    expect(await gate.notBefore("k", MAX_PACING_MS)).toBeUndefined();
  });

  it("forget the oldest when full, never growing past their bound", async () => {
    const gate = new MemoryPacingGate(3);
    for (const k of ["a", "b", "c", "d"]) await gate.defer(k, 10_000, 0);
    expect(await gate.notBefore("a", 0)).toBeUndefined();
    expect(await gate.notBefore("d", 0)).toBe(10_000);
  });

  describe("in Redis, shared by processes", () => {
    let redis: TestRedis;
    let one: RedisClient;
    let two: RedisClient;
    const prefix = uniquePrefix("pacing-gate");
    beforeAll(async () => {
      redis = await startTestRedis();
      one = openRedis(redis.url);
      two = openRedis(redis.url);
    });
    afterAll(async () => {
      await dropPrefix(one, prefix);
      one.disconnect();
      two.disconnect();
      await redis.stop();
    });

    it("a time one process set holds back another; the later of two wins; it expires", async () => {
      const now = Date.now();
      const a = new RedisPacingGate(one, prefix);
      const b = new RedisPacingGate(two, prefix);
      await a.defer("square:acct", now + 4_000, now);
      expect(await b.notBefore("square:acct", now)).toBe(now + 4_000);
      await b.defer("square:acct", now + 2_000, now);
      expect(await a.notBefore("square:acct", now)).toBe(now + 4_000);
      const ttl = await one.pttl(`${prefix}pacing:square:acct`);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(4_000);
      expect(await b.notBefore("square:acct", now + 4_000)).toBeUndefined();
    });

    it("a Redis that does not answer leaves the process's own wait in force", async () => {
      const broken = openRedis("redis://127.0.0.1:1", {
        redisOptions: {
          lazyConnect: true,
          maxRetriesPerRequest: 0,
          enableOfflineQueue: false,
          retryStrategy: () => null,
        },
      });
      const errors: unknown[] = [];
      const gate = new RedisPacingGate(broken, prefix, (e) => errors.push(e));
      const now = Date.now();
      await gate.defer("k", now + 1_000, now);
      expect(await gate.notBefore("k", now)).toBe(now + 1_000);
      expect(errors.length).toBeGreaterThan(0);
      broken.disconnect();
    });
  });
});
