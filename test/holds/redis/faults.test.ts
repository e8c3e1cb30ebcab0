/**
 * Faults, each on a private redis-server (never a shared one): the connection killed
 * (CLIENT KILL) and the server restarted (SHUTDOWN NOSAVE, then the same port again) in
 * the middle of a run. Operations in flight reject with HoldStoreUnavailableError, the
 * state read back from Redis holds no partial allocation, and the store reconnects and
 * places holds again (after a restart, loading its scripts again on NOSCRIPT).
 */
import { Redis } from "ioredis";
import { afterEach, describe, expect, it } from "vitest";
import { HoldStoreUnavailableError, type PlaceHoldRequest } from "../../../src/holds/port.js";
import { createRedisGatewayStore, type RedisHoldStore } from "../../../src/holds/redis/index.js";
import { startOwnRedis, uniquePrefix } from "../../support/redis.js";
import { consistencyProblems, overbooked, readHostState } from "./inspect.js";

const T0 = Date.UTC(2030, 0, 7, 9, 0, 0);
const MINUTE = 60_000;
const RESOURCES = ["bay-1", "bay-2", "bay-3"];

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setUp(options: { appendOnly?: boolean } = {}) {
  const server = await startOwnRedis(options);
  cleanups.push(() => server.stop());
  const prefix = uniquePrefix("faults");
  const store = await createRedisGatewayStore({ url: server.url, keyPrefix: prefix });
  cleanups.push(() => store.close());
  const admin = new Redis(server.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  admin.on("error", () => undefined);
  cleanups.push(() => Promise.resolve(admin.disconnect()));
  return { server, prefix, store, admin, hostId: `host-${prefix}` };
}

/** Concurrent loops placing holds on ever later slots until stopped. */
function load(store: RedisHoldStore, hostId: string, loops = 16) {
  let stopped = false;
  let next = 0;
  const granted: string[] = [];
  const errors: unknown[] = [];
  let completed = 0;
  const request = (n: number): PlaceHoldRequest => ({
    hostId,
    holdId: `h-${n}`,
    serviceId: "svc",
    // Two requests per slot, so some are refused as taken and the rest granted.
    interval: { start: T0 + Math.floor(n / 2) * MINUTE, end: T0 + (Math.floor(n / 2) + 1) * MINUTE },
    requirements: [
      { type: "bay", candidates: [{ id: RESOURCES[n % 3] ?? "bay-1", capacity: 1 }], units: 1 },
      { type: "tech", candidates: [{ id: "tech-1", capacity: 2 }], units: 1 },
    ],
    ttlMs: 30 * MINUTE,
    now: T0 - MINUTE,
    owner: {
      agentKey: "agent",
      principal: "p",
      mandates: [{ rootIss: "iss", jti: "jti", maxBookings: 1_000_000 }],
    },
    caps: { principalProven: false, maxActiveUnproven: 1_000_000 },
    payload: "{}",
  });
  const loop = async (): Promise<void> => {
    while (!stopped) {
      const n = next++;
      try {
        const outcome = await store.placeHold(request(n));
        if (outcome.ok) granted.push(outcome.value.holdId);
        completed++;
      } catch (error) {
        errors.push(error);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    }
  };
  const running = Promise.all(Array.from({ length: loops }, loop));
  return {
    granted,
    errors,
    completed: () => completed,
    stop: async () => {
      stopped = true;
      await running;
    },
  };
}

async function until(condition: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

async function expectConsistent(admin: Redis, prefix: string, hostId: string, granted: readonly string[]) {
  const state = await readHostState(admin, prefix, hostId);
  expect(consistencyProblems(state)).toEqual([]);
  expect(overbooked(state.allocations, (id) => (id === "tech-1" ? 2 : 1))).toBe(0);
  // Every hold a caller was told it got is there, whole.
  for (const holdId of granted) expect(state.holds.get(holdId)?.["s"]).toBe("held");
  return state;
}

describe("RedisHoldStore under faults (own redis-server)", () => {
  it("a killed connection rejects in-flight operations explicitly; nothing is half-written; it reconnects", async () => {
    const { prefix, store, admin, hostId } = await setUp();
    const run = load(store, hostId);
    await until(() => run.completed() >= 40, "a first batch of holds");
    await admin.connect();
    const killed = await admin.client("KILL", "TYPE", "NORMAL");
    expect(Number(killed)).toBeGreaterThan(0);
    await until(() => run.errors.length > 0, "the in-flight operations to fail");
    const afterKill = run.completed();
    await until(() => run.completed() >= afterKill + 40, "holds after reconnecting");
    await run.stop();

    expect(run.errors.length).toBeGreaterThan(0);
    for (const error of run.errors) expect(error).toBeInstanceOf(HoldStoreUnavailableError);
    // Some were in flight when the connection died (their outcome is unknown to the caller),
    // the rest were refused before being sent while it reconnected.
    const messages = run.errors.map((e) => (e as Error).message);
    expect(messages.some((m) => m.includes("may have run"))).toBe(true);
    await expectConsistent(admin, prefix, hostId, run.granted);
  });

  it("a restarted server: explicit errors meanwhile, no partial allocation, scripts loaded again", async () => {
    const { server, prefix, store, admin, hostId } = await setUp({ appendOnly: true });
    const run = load(store, hostId);
    await until(() => run.completed() >= 40, "a first batch of holds");
    const reloadsBefore = store.scriptReloads;
    await server.restart?.();
    await until(() => run.errors.length > 0, "operations to fail while the server is down");
    const afterRestart = run.completed();
    await until(() => run.completed() >= afterRestart + 40, "holds after the restart");
    await run.stop();

    for (const error of run.errors) expect(error).toBeInstanceOf(HoldStoreUnavailableError);
    // The restarted server had no scripts: the store answered NOSCRIPT by loading them.
    expect(store.scriptReloads).toBeGreaterThan(reloadsBefore);
    await admin.connect();
    // The append-only file kept every acknowledged write, and only whole scripts' effects.
    const state = await expectConsistent(admin, prefix, hostId, run.granted);
    expect(state.holds.size).toBeGreaterThan(0);
  });

  it("a reply that does not come in time rejects explicitly; the script, if it ran, ran whole", async () => {
    const server = await startOwnRedis();
    cleanups.push(() => server.stop());
    const prefix = uniquePrefix("timeout");
    const store = await createRedisGatewayStore({
      url: server.url,
      keyPrefix: prefix,
      commandTimeoutMs: 150,
    });
    cleanups.push(() => store.close());
    const admin = new Redis(server.url);
    cleanups.push(() => Promise.resolve(admin.disconnect()));
    const hostId = "slow";
    const request: PlaceHoldRequest = {
      hostId,
      holdId: "h-slow",
      serviceId: "svc",
      interval: { start: T0, end: T0 + MINUTE },
      requirements: [{ type: "bay", candidates: [{ id: "bay-1", capacity: 1 }], units: 1 }],
      ttlMs: MINUTE,
      now: T0 - MINUTE,
      owner: { agentKey: "agent", principal: "p", mandates: [] },
      caps: { principalProven: true },
      payload: "",
    };
    expect(
      (await store.placeHold({ ...request, holdId: "h-first", interval: { start: 0, end: 1 } })).ok,
    ).toBe(true);
    // The server stops serving clients for a while; the store must not wait for it.
    await admin.client("PAUSE", 500, "ALL");
    const error = await store.placeHold(request).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(HoldStoreUnavailableError);
    expect((error as Error).message).toContain("may have run");
    // It had been sent, so it runs once the pause ends: whole, as one script.
    let hold = await store.getHold(hostId, "h-slow", T0 - MINUTE).catch(() => undefined);
    const deadline = Date.now() + 5000;
    while (hold === undefined && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      hold = await store.getHold(hostId, "h-slow", T0 - MINUTE).catch(() => undefined);
    }
    expect(hold?.allocations).toEqual([{ resourceId: "bay-1", units: 1 }]);
    expect(consistencyProblems(await readHostState(admin, prefix, hostId))).toEqual([]);
  });

  it("fails fast while Redis is down, and carries on when it is back", async () => {
    const { server, store, hostId } = await setUp();
    const request = (holdId: string): PlaceHoldRequest => ({
      hostId,
      holdId,
      serviceId: "svc",
      interval: { start: T0, end: T0 + MINUTE },
      requirements: [{ type: "bay", candidates: [{ id: "bay-1", capacity: 1 }], units: 1 }],
      ttlMs: MINUTE,
      now: T0 - MINUTE,
      owner: { agentKey: "agent", principal: null, mandates: [] },
      caps: { principalProven: true },
      payload: "",
    });
    await server.kill?.();
    await expect(store.placeHold(request("h-down"))).rejects.toBeInstanceOf(HoldStoreUnavailableError);
    await expect(store.getHold(hostId, "h-down", T0)).rejects.toBeInstanceOf(HoldStoreUnavailableError);
    await expect(store.takeExpiryEvents(hostId, 1)).rejects.toBeInstanceOf(HoldStoreUnavailableError);
    await server.start?.();
    const deadline = Date.now() + 10_000;
    let outcome: Awaited<ReturnType<RedisHoldStore["placeHold"]>> | undefined;
    while (outcome === undefined) {
      try {
        outcome = await store.placeHold(request("h-back"));
      } catch (error) {
        // Until the client has reconnected: the same explicit error, never a hang.
        expect(error).toBeInstanceOf(HoldStoreUnavailableError);
        if (Date.now() > deadline) throw error;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }
    expect(outcome.ok).toBe(true);
  });
});
