/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-return -- JSON bodies read loosely in assertions */
/**
 * The A2A REST booking path with the gateway's store, keys and abuse buckets on Redis (this
 * test's own prefix): book, the retried POST answering the same session, a second gateway
 * process over the same Redis seeing the booking and accepting the key, cancel, and the time
 * offered again.
 */
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startGateway, type E2eGateway } from "../../../e2e/support/gateway.js";
import { dropPrefix, startTestRedis, uniquePrefix, type TestRedis } from "../../../support/redis.js";

const HOST = "maple-street-auto";
const DAY = 86_400_000;
const prefix = uniquePrefix("a2a-rest");
let redis: TestRedis;
let a: E2eGateway;
let b: E2eGateway;

async function call(gw: E2eGateway, method: string, path: string, body?: unknown, key?: string) {
  const r = await fetch(`${gw.origin}/api/servicialo/${HOST}/${path}`, {
    method,
    headers: { "content-type": "application/json", ...(key !== undefined && { "x-org-api-key": key }) },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  return { status: r.status, body: (await r.json()) as Record<string, any> };
}

function nextThursday(): string {
  for (let d = 2; d < 10; d++) {
    const s = new Date(Date.now() + d * DAY).toLocaleDateString("en-CA", { timeZone: "America/Toronto" });
    if (new Date(`${s}T12:00:00Z`).getUTCDay() === 4) return s;
  }
  throw new Error("unreachable");
}

beforeAll(async () => {
  redis = await startTestRedis();
  a = await startGateway({ redisUrl: redis.url, redisKeyPrefix: prefix });
  b = await startGateway({ redisUrl: redis.url, redisKeyPrefix: prefix });
}, 60_000);

afterAll(async () => {
  await a?.close();
  await b?.close();
  const admin = new Redis(redis.url);
  await dropPrefix(admin, prefix);
  await dropPrefix(admin, `{${prefix}`);
  admin.disconnect();
  await redis.stop();
}, 60_000);

describe("A2A REST on Redis", () => {
  it("books once across retries and processes, cancels with the key from either, frees the time", async () => {
    const q = `availability?serviceId=oil-change&date=${nextThursday()}`;
    const slot = (await call(a, "GET", q)).body.available_slots[2].start as string;
    const book = (gw: E2eGateway) =>
      call(gw, "POST", "book", {
        clientEmail: "redis.user@mail.com",
        serviceId: "oil-change",
        scheduledAt: slot,
      });
    const first = await book(a);
    expect(first.status).toBe(201);
    const id = first.body.session.id as string;
    // The retry lands on the other process: the same session, not a second booking.
    const retry = await book(b);
    expect(retry.status).toBe(201);
    expect(retry.body.session.id).toBe(id);
    const listed = await b.runtime.service.listBookings(HOST);
    expect(
      listed.ok && listed.value.filter((x) => x.start === Date.parse(slot) && x.status === "confirmed"),
    ).toHaveLength(1);
    expect((await call(b, "GET", q)).body.available_slots.map((s: any) => s.start)).not.toContain(slot);

    // A key issued through one process is the key of both (Redis); the older one stops.
    const old = await a.runtime.a2aKeys.issue(HOST);
    const key = await b.runtime.a2aKeys.issue(HOST);
    expect((await call(a, "POST", `sessions/${id}/cancel`, {}, old)).status).toBe(401);
    const cancelled = await call(a, "POST", `sessions/${id}/cancel`, { reason: "viaje" }, key);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.status).toBe("cancelled");
    const twice = await call(b, "POST", `sessions/${id}/cancel`, {}, key);
    expect(twice.status).toBe(409);
    expect((await call(a, "GET", q)).body.available_slots.map((s: any) => s.start)).toContain(slot);
  });
});
