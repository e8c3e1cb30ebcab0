/**
 * Records the hold store kept for SchCP §9.1 before idempotency became one core mechanism are
 * read by it unchanged, and it writes the same records: a deployment's Redis keeps working
 * across the upgrade (`<p>idem:<n>:<agent><key>`, src/holds/redis/keys.ts). The fixtures are
 * written field by field as the previous version's scripts wrote them.
 */
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { requestHash, schcpIdempotencyStore, withIdempotency } from "../../../src/edges/schcp/idempotency.js";
import { createRedisGatewayStore, type RedisHoldStore } from "../../../src/holds/redis/index.js";
import { dropPrefix, startTestRedis, type TestRedis, uniquePrefix } from "../../support/redis.js";

const T0 = Date.UTC(2030, 0, 7, 9, 0, 0);
const HOUR = 3_600_000;
const AGENT = "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs";
const PATH = "/schcp/v0/maple-street-auto/holds";
const BODY = '{"service_id":"oil-change","start":"2030-01-08T15:00:00Z","idempotency_key":"k-1"}';
const STORED = { status: 201, body: '{"hold_id":"h_1","status":"held"}' };
const always = () => ({ ok: true as const, value: undefined });

let redis: TestRedis | undefined;
let admin: Redis | undefined;
let store: RedisHoldStore | undefined;
let prefix = "";

beforeAll(async () => {
  redis = await startTestRedis();
  admin = new Redis(redis.url);
  prefix = uniquePrefix("idem-records");
  store = await createRedisGatewayStore({ url: redis.url, keyPrefix: prefix });
});
afterAll(async () => {
  if (admin !== undefined) await dropPrefix(admin, prefix);
  await store?.close();
  admin?.disconnect();
  await redis?.stop();
});

/** The previous version's key: `<p>idem:<length of agent>:<agent><idempotency key>`. */
const recordKey = (key: string): string => `${prefix}idem:${AGENT.length}:${AGENT}${key}`;

function gate(
  key: string,
  body: string,
  principal: string | null,
  now: number,
  run = () => Promise.resolve(STORED),
) {
  if (store === undefined || admin === undefined) throw new Error("no test Redis");
  return withIdempotency(
    schcpIdempotencyStore(store),
    {
      agentKey: AGENT,
      idempotencyKey: key,
      requestHash: requestHash("POST", PATH, body),
      principal,
      clock: { now: () => now },
    },
    run,
    always,
  );
}

describe("the hold store's SchCP §9.1 records across the upgrade", () => {
  it("replays a record the previous version stored, and refuses another body under its key", async () => {
    await admin?.hset(recordKey("old-done"), {
      st: "done",
      rh: requestHash("POST", PATH, BODY),
      rs: "201",
      rb: STORED.body,
      ca: String(T0),
      ku: String(T0 + 25 * HOUR),
      pr: "https://id.example/ellis",
    });
    let ran = 0;
    const run = () => {
      ran++;
      return Promise.resolve({ status: 500, body: "{}" });
    };
    const again = await gate("old-done", BODY, "https://id.example/ellis", T0 + HOUR, run);
    expect(again).toEqual({ ok: true, value: { response: STORED, replayed: true } });
    const other = await gate("old-done", `${BODY} `, "https://id.example/ellis", T0 + HOUR, run);
    expect(other.ok ? undefined : other.error.code).toBe("idempotency_conflict");
    expect(ran).toBe(0);
  });

  it("honours a lock the previous version took until it lapses", async () => {
    await admin?.hset(recordKey("old-lock"), {
      st: "lock",
      fe: "fence-of-the-old-process",
      lu: String(T0 + 60_000),
    });
    const during = await gate("old-lock", BODY, null, T0 + 1_000);
    expect(during.ok ? undefined : during.error.code).toBe("invalid_state");
    const after = await gate("old-lock", BODY, null, T0 + 60_000);
    expect(after).toEqual({ ok: true, value: { response: STORED, replayed: false } });
  });

  it("writes the record in the previous version's fields", async () => {
    await gate("new-done", BODY, "https://id.example/ellis", T0);
    expect(await admin?.hgetall(recordKey("new-done"))).toEqual({
      st: "done",
      rh: requestHash("POST", PATH, BODY),
      rs: "201",
      rb: STORED.body,
      ca: String(T0),
      ku: String(T0 + 25 * HOUR),
      pr: "https://id.example/ellis",
    });
    await gate("new-anonymous", BODY, null, T0);
    expect(await admin?.hgetall(recordKey("new-anonymous"))).not.toHaveProperty("pr");
  });
});
