/**
 * The console's stores against the memory twin and a real Redis (REDIS_URL, this run's own
 * key prefix): sessions end idle or at the absolute bound on the gateway clock, are kept under
 * their id's hash (a store dump holds no usable id), and a session made through one process's
 * store is honoured through another's on the same Redis; sign-in attempts are counted per
 * origin before they are checked (300 at once: 5 go on), a success gives its count back, and a
 * window ends.
 */
import type { RedisClient } from "../../../src/redis/client.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectClient, createClient } from "../../../src/redis/connection.js";
import {
  MemorySessionStore,
  RedisSessionStore,
  Sessions,
  secretsMatch,
  type SessionStore,
} from "../../../src/edges/console/sessions.js";
import {
  MemorySignInLimiter,
  RedisSignInLimiter,
  type SignInLimiter,
} from "../../../src/edges/console/sign-in-limit.js";
import { dropPrefix, startTestRedis, uniquePrefix, type TestRedis } from "../../support/redis.js";
import { systemClock } from "../../../src/protocol/clock.js";

let redis: TestRedis;
let client: RedisClient;
const prefix = uniquePrefix("console");
const sub = () => `${prefix}${Math.random().toString(36).slice(2)}:`;

beforeAll(async () => {
  redis = await startTestRedis();
  client = createClient({ url: redis.url });
  await connectClient(client, redis.url);
});
afterAll(async () => {
  await dropPrefix(client, prefix);
  await client.quit();
  await redis.stop();
});

const policy = { idleMs: 10 * 60_000, absoluteMs: 60 * 60_000 };

describe.each([
  ["memory", () => ({ store: new MemorySessionStore(), at: "" })],
  [
    "redis",
    () => {
      const at = sub();
      return { store: new RedisSessionStore(client, at), at };
    },
  ],
] as Array<[string, () => { store: SessionStore; at: string }]>)("%s sessions", (name, make) => {
  it("ends idle, ends at the absolute bound, ends on sign-out", async () => {
    let now = 1_000_000;
    const { store, at } = make();
    const sessions = new Sessions(store, { now: () => now }, policy);
    const { id, session } = await sessions.create();
    expect(id).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(session.csrf).not.toBe(id);
    if (name === "redis") {
      const keys = await client.keys(`${at}*`);
      expect(keys).toHaveLength(1);
      expect(keys[0]).not.toContain(id);
      const ttl = await client.pttl(keys[0] ?? "");
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(policy.idleMs);
    }
    now += 9 * 60_000;
    expect(await sessions.use(id)).toMatchObject({ csrf: session.csrf });
    now += 10 * 60_000;
    expect(await sessions.use(id)).toBeUndefined();
    expect(await sessions.use(id)).toBeUndefined();

    const busy = await sessions.create();
    for (let i = 0; i < 6; i++) {
      now += 9 * 60_000;
      expect(await sessions.use(busy.id), `step ${i}`).toBeDefined();
    }
    now += 9 * 60_000; // 63 min after sign-in
    expect(await sessions.use(busy.id)).toBeUndefined();

    const out = await sessions.create();
    await sessions.end(out.id);
    expect(await sessions.use(out.id)).toBeUndefined();
    expect(await sessions.use("not-a-session")).toBeUndefined();
    expect(await sessions.use(undefined)).toBeUndefined();
  });

  it("keeps a flash message until it is cleared", async () => {
    const { store } = make();
    const sessions = new Sessions(store, { now: () => 5 }, policy);
    const { id, session } = await sessions.create();
    await sessions.flash(id, session, { text: "Approved" });
    const seen = await sessions.use(id);
    expect(seen?.flash).toEqual({ text: "Approved" });
    await sessions.flash(id, seen!, undefined);
    expect((await sessions.use(id))?.flash).toBeUndefined();
  });
});

it("a session made through one process's Redis store is honoured through another's", async () => {
  const at = sub();
  const other = createClient({ url: redis.url });
  await connectClient(other, redis.url);
  try {
    const a = new Sessions(new RedisSessionStore(client, at), { now: () => 0 }, policy);
    const b = new Sessions(new RedisSessionStore(other, at), { now: () => 60_000 }, policy);
    const { id, session } = await a.create();
    expect((await b.use(id))?.csrf).toBe(session.csrf);
    await b.end(id);
    expect(await a.use(id)).toBeUndefined();
  } finally {
    await other.quit();
  }
});

it("secretsMatch compares whole secrets, whatever their lengths", () => {
  expect(secretsMatch("abc", "abc")).toBe(true);
  expect(secretsMatch("abc", "abcd")).toBe(false);
  expect(secretsMatch("", "")).toBe(false);
  expect(secretsMatch(undefined, "abc")).toBe(false);
});

describe("sign-in limiter", () => {
  it("memory: 5 failures lock an origin for the rest of the window, others unaffected", async () => {
    let now = 0;
    const limit = new MemorySignInLimiter({ now: () => now }, { maxFailures: 5, windowMs: 60_000 });
    for (let i = 0; i < 4; i++) expect(await limit.attempt("a")).toBe(0);
    now = 10_000;
    expect(await limit.attempt("a")).toBe(0);
    expect(await limit.attempt("a")).toBe(50_000);
    expect(await limit.attempt("b")).toBe(0);
    now = 60_000;
    expect(await limit.attempt("a")).toBe(0);
  });

  it("memory: a success gives its count back, so only failures lock an origin out", async () => {
    const limit = new MemorySignInLimiter({ now: () => 0 }, { maxFailures: 2, windowMs: 60_000 });
    for (let i = 0; i < 10; i++) {
      expect(await limit.attempt("op")).toBe(0);
      await limit.succeeded("op");
    }
    expect(await limit.attempt("op")).toBe(0);
    expect(await limit.attempt("op")).toBe(0);
    expect(await limit.attempt("op")).toBeGreaterThan(0);
    // A success does not reset the failures before it.
    await limit.succeeded("op");
    expect(await limit.attempt("op")).toBe(0);
    expect(await limit.attempt("op")).toBeGreaterThan(0);
  });

  it("redis: the count is shared and the window is Redis's TTL", async () => {
    const at = sub();
    const one = new RedisSignInLimiter(client, at, { maxFailures: 3, windowMs: 60_000 });
    const two = new RedisSignInLimiter(client, at, { maxFailures: 3, windowMs: 60_000 });
    expect(await one.attempt("198.51.100.7")).toBe(0);
    expect(await two.attempt("198.51.100.7")).toBe(0);
    expect(await one.attempt("198.51.100.7")).toBe(0);
    const wait = await two.attempt("198.51.100.7");
    expect(wait).toBeGreaterThan(55_000);
    expect(wait).toBeLessThanOrEqual(60_000);
    expect(await two.attempt("198.51.100.8")).toBe(0);
    await client.pexpire(`${at}console:sign-in-failures:198.51.100.7`, 1);
    await new Promise((r) => setTimeout(r, 20));
    expect(await one.attempt("198.51.100.7")).toBe(0);
  });

  it("redis: a success gives its count back inside the window only, never below zero", async () => {
    const at = sub();
    const limit = new RedisSignInLimiter(client, at, { maxFailures: 2, windowMs: 60_000 });
    await limit.succeeded("198.51.100.9");
    expect(await client.exists(`${at}console:sign-in-failures:198.51.100.9`)).toBe(0);
    expect(await limit.attempt("198.51.100.9")).toBe(0);
    await limit.succeeded("198.51.100.9");
    await limit.succeeded("198.51.100.9");
    expect(await client.get(`${at}console:sign-in-failures:198.51.100.9`)).toBe("0");
    expect(await limit.attempt("198.51.100.9")).toBe(0);
    expect(await limit.attempt("198.51.100.9")).toBe(0);
    expect(await limit.attempt("198.51.100.9")).toBeGreaterThan(0);
  });

  it.each([
    ["memory", () => new MemorySignInLimiter(systemClock)],
    ["redis", () => new RedisSignInLimiter(client, sub())],
  ] as Array<[string, () => SignInLimiter]>)(
    "%s: of 300 parallel attempts from one origin, exactly 5 go on",
    async (_name, make) => {
      const limit = make();
      const waits = await Promise.all(Array.from({ length: 300 }, () => limit.attempt("192.0.2.1")));
      expect(waits.filter((w) => w === 0)).toHaveLength(5);
      expect(Math.min(...waits.filter((w) => w > 0))).toBeGreaterThan(14 * 60_000);
    },
  );
});
