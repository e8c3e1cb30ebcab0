/**
 * POST /webhooks/square/{hostId} (src/gateway/http/square-webhooks.ts) on a real gateway with
 * Redis, whose Square host talks to a loopback fake of Square (test/e2e/support/fake-square.ts):
 * a booking made over SchCP, then changed in "Square's own tools" (the fake), then notified.
 *
 * - a bad signature (wrong key, tampered body, a URL other than PUBLIC_ORIGIN + path, none)
 *   is 401 and nothing is done;
 * - a cancellation in Square cancels the gateway booking (the operator's host cancel: the
 *   guest's receipt reads cancelled);
 * - a replayed event is worked once (Redis SET NX de-dup), and a move is not applied but
 *   logged as unresolved for the operator.
 */
import { createHmac } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DiscoveredHost } from "../../../src/agent/index.js";
import { RedisEventDeduplicator } from "../../../src/gateway/http/square-webhooks.js";
import { readFixture } from "../../support/fixtures.js";
import { dropPrefix, startTestRedis, uniquePrefix, type TestRedis } from "../../support/redis.js";
import { discover, freeSlots, holdAndBook, must, newAgent, type E2eAgent } from "../../e2e/support/agents.js";
import { FakeSquareServer, SQUARE_HAIRCUT, SQUARE_LOCATION_ID } from "../../e2e/support/fake-square.js";
import { startGateway, type E2eGateway } from "../../e2e/support/gateway.js";

const HOST = "maple-square";
const TOKEN = "EAAAl-webhook-test-token-0123456789";
const SIGNATURE_KEY = "whsec-e2e-signature-key-1";

const square = new FakeSquareServer(TOKEN);
let redis: TestRedis;
let prefix: string;
let gw: E2eGateway;

beforeAll(async () => {
  redis = await startTestRedis();
  prefix = uniquePrefix("sqwh");
  await square.start();
  gw = await startGateway({
    redisUrl: redis.url,
    redisKeyPrefix: prefix,
    runtime: { workers: false },
    config: {
      hosts: [
        {
          id: HOST,
          name: "Maple Street Studio",
          timezone: "America/Toronto",
          connector: {
            type: "square",
            settings: {
              environment: "sandbox",
              locationId: SQUARE_LOCATION_ID,
              version: "2026-08-20",
              accessToken: TOKEN,
              baseUrl: square.origin,
              webhookSignatureKey: SIGNATURE_KEY,
            },
          },
          policies: { confirmation: "instant", retention: "P365D" },
          services: [],
        },
      ],
    },
  });
}, 60_000);

afterAll(async () => {
  await gw?.close();
  await square.close();
  if (redis !== undefined) {
    const { Redis } = await import("ioredis");
    const admin = new Redis(redis.url);
    await dropPrefix(admin, prefix);
    admin.disconnect();
    await redis.stop();
  }
}, 60_000);

const sign = (url: string, body: string, key = SIGNATURE_KEY) =>
  createHmac("sha256", key)
    .update(url + body)
    .digest("base64");

function notificationUrl(hostId = HOST): string {
  return `${gw.origin}/webhooks/square/${hostId}`;
}

async function post(body: string, signature: string | undefined, hostId = HOST): Promise<Response> {
  return fetch(notificationUrl(hostId), {
    method: "POST",
    headers: {
      "content-type": "application/json",
      ...(signature !== undefined && { "x-square-hmacsha256-signature": signature }),
    },
    body,
  });
}

interface Made {
  readonly agent: E2eAgent;
  readonly host: DiscoveredHost;
  readonly bookingId: string;
  readonly mandate: string;
  readonly upstreamId: string;
  readonly start: number;
}

/** A booking made over SchCP; its Square id is the fake's newest booking. */
async function book(fromDays: number): Promise<Made> {
  const agent = newAgent(gw);
  const host = await discover(agent, gw, HOST);
  const [slot] = await freeSlots(agent, gw, host, SQUARE_HAIRCUT, { fromDays, toDays: fromDays + 7 });
  const made = await holdAndBook(agent, host, SQUARE_HAIRCUT, slot!.start);
  const upstreamId = [...square.bookings.keys()].at(-1)!;
  expect(Date.parse(String(square.bookings.get(upstreamId)?.["start_at"]))).toBe(Date.parse(slot!.start));
  return {
    agent,
    host,
    bookingId: made.booking.booking.booking_id,
    mandate: made.mandate.compact,
    upstreamId,
    start: Date.parse(slot!.start),
  };
}

async function statusOf(m: Made): Promise<string> {
  const r = must(await m.agent.client.getBooking(m.host, m.bookingId, { mandate: m.mandate }), "get booking");
  return r.body.booking.status;
}

const logged = (text: string) => gw.logs.filter((l) => l.message.includes(text));

describe("POST /webhooks/square/{hostId}", { timeout: 120_000 }, () => {
  it("refuses a bad signature with 401 and does nothing", async () => {
    const m = await book(2);
    square.sellerCancels(m.upstreamId);
    const body = square.webhookFor(m.upstreamId);
    const bad: Array<[string, string | undefined, string?]> = [
      ["wrong key", sign(notificationUrl(), body, "another-key")],
      ["tampered body", sign(notificationUrl(), body.replace("CANCELLED", "ACCEPTED"))],
      ["URL other than the public one", sign(`http://localhost:1/webhooks/square/${HOST}`, body)],
      ["no signature", undefined],
      ["garbage", "not base64!"],
    ];
    for (const [what, signature] of bad) {
      const res = await post(body, signature);
      expect(res.status, what).toBe(401);
    }
    await gw.runtime.squareWebhooks!.idle();
    expect(await statusOf(m)).toBe("confirmed");
    expect(logged("cancelled in Square, cancelled here")).toHaveLength(0);
    // A host that is not a Square host with a key has no receiver at all.
    expect((await post(body, sign(notificationUrl("nobody"), body), "nobody")).status).toBe(404);
  });

  it("a cancellation in Square cancels the gateway booking; the replay is worked once", async () => {
    const m = await book(3);
    expect(await statusOf(m)).toBe("confirmed");
    square.sellerCancels(m.upstreamId);
    const body = square.webhookFor(m.upstreamId);
    const first = await post(body, sign(notificationUrl(), body));
    expect(first.status).toBe(200);
    expect(await first.json()).toEqual({ ok: true });
    await gw.runtime.squareWebhooks!.idle();
    expect(await statusOf(m)).toBe("cancelled");
    const again = await post(body, sign(notificationUrl(), body));
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual({ ok: true, duplicate: true });
    await gw.runtime.squareWebhooks!.idle();
    expect(logged("cancelled in Square, cancelled here")).toHaveLength(1);
  });

  it("a move in Square is not applied: logged unresolved for the operator, once for a replayed event", async () => {
    const m = await book(4);
    square.sellerMoves(m.upstreamId, m.start + 60 * 60_000);
    const body = square.webhookFor(m.upstreamId);
    const answers: unknown[] = [];
    for (let i = 0; i < 3; i++) answers.push(await (await post(body, sign(notificationUrl(), body))).json());
    expect(answers).toEqual([{ ok: true }, { ok: true, duplicate: true }, { ok: true, duplicate: true }]);
    await gw.runtime.squareWebhooks!.idle();
    const unresolved = logged("UNRESOLVED square move");
    expect(unresolved).toHaveLength(1);
    expect(unresolved[0]?.fields).toMatchObject({ booking_id: m.bookingId, upstream_id: m.upstreamId });
    const read = must(await m.agent.client.getBooking(m.host, m.bookingId, { mandate: m.mandate }), "get");
    expect(read.body.booking.status).toBe("confirmed");
    expect(Date.parse(read.body.booking.start)).toBe(m.start);
  });

  it("answers 200 and ignores events it has no use for (another type, another location)", async () => {
    const other = JSON.stringify({ type: "customer.created", event_id: "evt-other-1", data: {} });
    expect((await post(other, sign(notificationUrl(), other))).status).toBe(200);
    const m = await book(5);
    square.sellerCancels(m.upstreamId);
    const elsewhere = square.webhookFor(m.upstreamId).replaceAll(SQUARE_LOCATION_ID, "LOTHERLOCATION1");
    const res = await post(elsewhere, sign(notificationUrl(), elsewhere));
    expect(await res.json()).toMatchObject({ ignored: "another location" });
    await gw.runtime.squareWebhooks!.idle();
    expect(await statusOf(m)).toBe("confirmed");
  });
});

describe("RedisEventDeduplicator", () => {
  it("SET NX with a TTL under the gateway's prefix: the first sighting is new, the next ones are not", async () => {
    const { Redis } = await import("ioredis");
    const client = new Redis(redis.url);
    try {
      const own = `${prefix}dedup-unit:`;
      const dedup = new RedisEventDeduplicator(client, own, 60_000);
      expect(await dedup.seen("evt-1")).toBe(false);
      expect(await dedup.seen("evt-1")).toBe(true);
      expect(await dedup.seen("evt-2")).toBe(false);
      const ttl = await client.pttl(`${own}square:webhook-event:evt-1`);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(60_000);
    } finally {
      client.disconnect();
    }
  });
});

describe("without Redis", { timeout: 60_000 }, () => {
  it("de-duplicates in process memory", async () => {
    const memory = await startGateway({
      runtime: { workers: false },
      config: {
        hosts: [
          {
            id: "memory-square",
            name: "Maple Street Studio",
            timezone: "America/Toronto",
            connector: {
              type: "square",
              settings: {
                environment: "sandbox",
                locationId: SQUARE_LOCATION_ID,
                version: "2026-08-20",
                accessToken: TOKEN,
                baseUrl: square.origin,
                webhookSignatureKey: SIGNATURE_KEY,
              },
            },
            services: [],
          },
        ],
      },
    });
    try {
      const url = `${memory.origin}/webhooks/square/memory-square`;
      const body = JSON.stringify({ type: "customer.created", event_id: "evt-memory-1", data: {} });
      const other = readFixture("square/webhook-booking-updated.json");
      const send = async (b: string) =>
        (
          await fetch(url, {
            method: "POST",
            headers: { "x-square-hmacsha256-signature": sign(url, b) },
            body: b,
          })
        ).json();
      expect(await send(body)).toMatchObject({ ignored: "not a booking event" });
      expect(await send(other)).toEqual({ ok: true });
      expect(await send(other)).toEqual({ ok: true, duplicate: true });
      await memory.runtime.squareWebhooks!.idle();
    } finally {
      await memory.close();
    }
  });
});
