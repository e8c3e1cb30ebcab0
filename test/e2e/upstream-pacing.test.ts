/* eslint-disable @typescript-eslint/no-explicit-any -- JSON bodies read loosely in assertions */
/**
 * An upstream's Retry-After binds every caller (docs/ARCHITECTURE.md, Trust at the seams: "an upstream's Retry-After is honoured
 * by every caller"; RFC 6585 §4, RFC 9110 §10.2.3): once Square answers 429 with Retry-After,
 * the next call to the same account — another SchCP availability request, an A2A availability
 * request, on this process or another sharing the Redis — is answered at once as rate limited
 * with the remaining wait, and nothing reaches Square until the time it named.
 *
 * Square is the loopback fake of test/support/square-platform.ts (shapes from fixtures/square;
 * its 429 body is Square's RATE_LIMITED error, fixtures/square/SOURCES.md).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatInstant } from "../../src/protocol/time/index.js";
import { DAY_MS, discover, newAgent, refusalOf } from "./support/agents.js";
import { startGateway, type E2eGateway } from "./support/gateway.js";
import { FakeSquareServer, SQUARE_HAIRCUT, SQUARE_LOCATION_ID } from "./support/fake-square.js";
import { openRedis } from "../../src/redis/client.js";
import { dropPrefix, startTestRedis, uniquePrefix, type TestRedis } from "../support/redis.js";

const HOST = "maple-square";
const TOKEN = "EAAAl-pacing-secret-token-0123456789";
const TZ = "America/Toronto";

function config(origin: string): unknown {
  return {
    hosts: [
      {
        id: HOST,
        name: "Maple Street Studio",
        kind: "business",
        timezone: TZ,
        connector: {
          type: "square",
          settings: {
            environment: "sandbox",
            locationId: SQUARE_LOCATION_ID,
            version: "2026-08-20",
            accessToken: TOKEN,
            baseUrl: origin,
            timeoutMs: 5_000,
            paymentRequirement: "none",
          },
        },
        policies: { confirmation: "instant", retention: "P365D" },
        services: [],
      },
    ],
  };
}

/** SchCP availability over the next week (an upstream SearchAvailability each time). */
async function schcpAvailability(gw: E2eGateway) {
  const agent = newAgent(gw);
  const host = await discover(agent, gw, HOST);
  const now = gw.clock.now();
  return agent.client.availability(host, {
    service_id: SQUARE_HAIRCUT,
    window: { start: formatInstant(now + 2 * DAY_MS, TZ), end: formatInstant(now + 9 * DAY_MS, TZ) },
    limit: 50,
  });
}

const slotCalls = (square: FakeSquareServer) =>
  square.requests.filter((r) => r.method === "POST" && r.path === "/v2/bookings/availability/search").length;

describe("an upstream's Retry-After holds back every caller of that account (one process)", () => {
  const square = new FakeSquareServer(TOKEN);
  let gw: E2eGateway;
  beforeAll(async () => {
    await square.start();
    gw = await startGateway({ config: config(square.origin) });
  }, 60_000);
  afterAll(async () => {
    await gw?.close();
    await square.close();
  });

  it("answers SchCP and A2A rate limited with the remaining wait, sends nothing, then calls again", async () => {
    square.inject("slots", { kind: "rate_limited", retryAfterSeconds: 6 });
    const first = refusalOf(await schcpAvailability(gw));
    expect(first.message).toMatch(/rate|try again/);
    expect(first.status).toBe(503);
    expect(`${first.code}/${first.reason}`).toBe("UPSTREAM_UNAVAILABLE/upstream_rate_limited");
    const sent = slotCalls(square);
    expect(sent).toBe(1);

    // Two seconds later: another agent's SchCP request is held back, with about 4 s to wait.
    gw.clock.advance(2_000);
    const second = refusalOf(await schcpAvailability(gw));
    expect(`${second.code}/${second.reason}`).toBe("UPSTREAM_UNAVAILABLE/upstream_rate_limited");
    expect(second.retry?.after).toBeDefined();
    expect(slotCalls(square)).toBe(sent);

    // A2A (Servicialo REST edge) on the same host: 429 RATE_LIMITED with Retry-After in seconds.
    const day = new Date(gw.clock.now() + 3 * DAY_MS).toISOString().slice(0, 10);
    const a2a = await fetch(
      `${gw.origin}/api/servicialo/${HOST}/availability?serviceId=${SQUARE_HAIRCUT}&date=${day}`,
    );
    expect(a2a.status).toBe(429);
    expect((await a2a.json()) as any).toMatchObject({ code: "RATE_LIMITED" });
    const after = Number(a2a.headers.get("retry-after"));
    expect(after).toBeGreaterThanOrEqual(1);
    expect(after).toBeLessThanOrEqual(4);
    expect(slotCalls(square)).toBe(sent);

    // Once the time Square named has passed, calls go out again.
    gw.clock.advance(4_500);
    const ok = await schcpAvailability(gw);
    expect(ok.ok).toBe(true);
    expect(slotCalls(square)).toBe(sent + 1);
  });
});

describe("an upstream's Retry-After holds back another gateway process sharing the Redis", () => {
  const square = new FakeSquareServer(TOKEN);
  const prefix = uniquePrefix("pacing");
  let redis: TestRedis;
  let a: E2eGateway;
  let b: E2eGateway;
  beforeAll(async () => {
    await square.start();
    redis = await startTestRedis();
    a = await startGateway({ config: config(square.origin), redisUrl: redis.url, redisKeyPrefix: prefix });
    b = await startGateway({ config: config(square.origin), redisUrl: redis.url, redisKeyPrefix: prefix });
  }, 60_000);
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await square.close();
    if (redis !== undefined) {
      const client = openRedis(redis.url);
      for (const p of [prefix, `{${prefix}`]) await dropPrefix(client, p);
      client.disconnect();
      await redis.stop();
    }
  });

  it("a 429 answered to one process is honoured by the other", async () => {
    square.inject("slots", { kind: "rate_limited", retryAfterSeconds: 30 });
    const first = refusalOf(await schcpAvailability(a));
    expect(first.reason).toBe("upstream_rate_limited");
    const sent = slotCalls(square);
    const other = refusalOf(await schcpAvailability(b));
    expect(other.reason).toBe("upstream_rate_limited");
    expect(slotCalls(square)).toBe(sent);
  });
});
