/**
 * Hold store benchmark: `npm run bench:holds [-- --store memory] [-- --rounds 3 …]`.
 *
 * 200 concurrent clients, each with ITS OWN connection (its own RedisHoldStore), race to
 * hold 50 slots (5 resources × 10 disjoint intervals, capacity 1): every client asks for
 * every slot once, in its own random order, so 10 000 placeHold calls compete for 50
 * units. Afterwards the allocations are read back from Redis and checked.
 *
 * The race runs `--rounds` times (default 3), each on a fresh host. Each race is cut into
 * `--segments` (default 10: every client's next 5 requests, all clients at once), and
 * after each segment the same 200 connections send as many bare PINGs, so holds and
 * PINGs share the machine's state at a fine grain; the rates reported are the medians
 * over rounds. A burst of load from other processes then cannot land on one and not
 * the other.
 *
 * Printed on stdout, one JSON object (progress goes to stderr):
 *   requested               placeHold calls in one race (clients × slots)
 *   slots                   slot units to win in one race
 *   granted                 holds granted in a race (every race must grant == slots;
 *                           a race that did not is reported instead)
 *   double_booked           units used beyond capacity at any moment, worst race (target 0)
 *   holds_per_s             placeHold calls COMPLETED per second, granted or refused:
 *                           calls / time spent in the race's segments (median)
 *   redis_roundtrips_per_s  bare PING round trips per second with the same 200
 *                           connections and concurrency, in the same run (median)
 *   ratio                   holds_per_s / redis_roundtrips_per_s (target: >= 0.5; one round
 *                           trip per hold is the physical limit, 1.0)
 * With --store memory the same race runs against one MemoryHoldStore shared by the
 * clients (it is in-process); there is no Redis, so the last two are null.
 *
 * Redis comes from REDIS_URL when it answers, otherwise a private redis-server is started
 * on a free loopback port (test/support/redis.ts); keys use a fresh prefix per run.
 * Exits non-zero when a race granted other than `slots` or double-booked.
 */
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { Redis } from "ioredis";
import type { RedisClient } from "../src/redis/client.js";
import type { HoldRecord, PlaceHoldRequest } from "../src/holds/port.js";
import { createRedisGatewayStore, type RedisHoldStore } from "../src/holds/redis/index.js";
import { consistencyProblems, overbooked, readHostState } from "../test/holds/redis/inspect.js";
import {
  runRace,
  scriptStats,
  shuffled,
  slotRequest,
  type RaceOutcome,
  type ScriptStats,
} from "../test/support/hold-race.js";
import { dropPrefix, startTestRedis, uniquePrefix } from "../test/support/redis.js";

const { values } = parseArgs({
  options: {
    store: { type: "string", default: "redis" },
    clients: { type: "string", default: "200" },
    resources: { type: "string", default: "5" },
    intervals: { type: "string", default: "10" },
    rounds: { type: "string", default: "3" },
    segments: { type: "string", default: "10" },
  },
});
const STORE = values.store;
const CLIENTS = Number(values.clients);
const ROUNDS = Math.max(1, Number(values.rounds));
const SEGMENTS = Math.max(1, Number(values.segments));
const RESOURCES = Array.from({ length: Number(values.resources) }, (_, i) => `bay-${i + 1}`);
const T0 = Date.UTC(2030, 0, 7, 9, 0, 0);
const SLOT_MS = 30 * 60_000;
const INTERVALS = Array.from({ length: Number(values.intervals) }, (_, i) => ({
  start: T0 + i * SLOT_MS,
  end: T0 + (i + 1) * SLOT_MS,
}));
const SLOTS = RESOURCES.length * INTERVALS.length;
const NOW = T0 - 60 * 60_000;

const log = (message: string): void => void process.stderr.write(`[bench:holds] ${message}\n`);

type Race = RaceOutcome;

/** Every client asks for every slot once, in its own order. */
function plan(clients: number, hostId: string): PlaceHoldRequest[][] {
  return Array.from({ length: clients }, (_, client) =>
    shuffled(
      RESOURCES.flatMap((resourceId) =>
        INTERVALS.map((interval) =>
          slotRequest({ hostId, client, resourceId, interval, now: NOW, maxActivePerAgent: 1000 }),
        ),
      ),
    ),
  );
}

/** All clients run their plans (or a slice of each) at once. */
const race = runRace;

/** Every connection sends `perClient` PINGs one after another, all connections at once. */
async function pings(clients: readonly RedisClient[], perClient: number): Promise<number> {
  const started = performance.now();
  await Promise.all(
    clients.map(async (client) => {
      for (let i = 0; i < perClient; i++) await client.ping();
    }),
  );
  return (performance.now() - started) / 1000;
}

interface Cpu {
  readonly node: number;
  readonly redis: number;
}

/** CPU seconds of this process and of the Redis server, to show where a phase's time goes. */
async function cpu(admin: Redis): Promise<Cpu> {
  const info = await admin.info("cpu");
  const field = (name: string): number => Number(new RegExp(`${name}:([0-9.]+)`).exec(info)?.[1] ?? "0");
  const usage = process.cpuUsage();
  return { node: (usage.user + usage.system) / 1e6, redis: field("used_cpu_user") + field("used_cpu_sys") };
}

class Phase {
  seconds = 0;
  ops = 0;
  node = 0;
  redis = 0;
  add(seconds: number, ops: number, before: Cpu, after: Cpu): void {
    this.seconds += seconds;
    this.ops += ops;
    this.node += after.node - before.node;
    this.redis += after.redis - before.redis;
  }
  get rate(): number {
    return this.ops / this.seconds;
  }
  describe(): string {
    const per = (seconds: number): string => `${((seconds / this.ops) * 1e6).toFixed(1)} µs`;
    return `${this.rate.toFixed(0)}/s, CPU per call node ${per(this.node)} redis ${per(this.redis)}`;
  }
}

/**
 * One race on a fresh host, cut into segments; after each segment the same connections
 * send as many PINGs. Interleaving the two at this grain gives both the same machine:
 * a burst of load from other processes cannot fall on one and miss the other.
 */
async function interleavedRace(
  stores: readonly RedisHoldStore[],
  plans: readonly PlaceHoldRequest[][],
  admin: Redis,
): Promise<{ race: Race; holds: Phase; pings: Phase; scripts: ScriptStats }> {
  const connections = stores.map((s) => s.redis);
  const perSegment = Math.ceil(SLOTS / SEGMENTS);
  const holds = new Phase();
  const ping = new Phase();
  const granted: HoldRecord[] = [];
  const scripts = { calls: 0, usec: 0, cpuUsec: 0 };
  for (let from = 0; from < SLOTS; from += perSegment) {
    const s0 = await scriptStats(admin);
    const c0 = await cpu(admin);
    const segment = await race(stores, plans, from, from + perSegment);
    const c1 = await cpu(admin);
    const s1 = await scriptStats(admin);
    scripts.calls += s1.calls - s0.calls;
    scripts.usec += s1.usec - s0.usec;
    scripts.cpuUsec += s1.cpuUsec - s0.cpuUsec;
    const perClient = Math.min(perSegment, SLOTS - from);
    const seconds = await pings(connections, perClient);
    const c2 = await cpu(admin);
    holds.add(segment.seconds, segment.completed, c0, c1);
    ping.add(seconds, connections.length * perClient, c1, c2);
    granted.push(...segment.granted);
  }
  return { race: { granted, completed: holds.ops, seconds: holds.seconds }, holds, pings: ping, scripts };
}

/** Units beyond capacity according to what the clients were told. */
function doubleBookedFromOutcomes(granted: readonly HoldRecord[]): number {
  const rows = granted.flatMap((h) =>
    h.allocations.map((a) => ({ resourceId: a.resourceId, holdId: h.holdId, units: a.units, ...h.interval })),
  );
  return overbooked(rows, () => 1);
}

const median = (xs: readonly number[]): number => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};

async function benchRedis() {
  const redis = await startTestRedis();
  log(`redis at ${redis.url} (${redis.ownServer ? "own server" : "REDIS_URL"})`);
  const prefix = uniquePrefix("bench");
  const stores: RedisHoldStore[] = [];
  const inspector = new Redis(redis.url);
  try {
    for (let i = 0; i < CLIENTS; i++) {
      stores.push(await createRedisGatewayStore({ url: redis.url, keyPrefix: prefix }));
    }
    log(`${CLIENTS} stores connected, each on its own connection`);
    const connections = stores.map((s) => s.redis);
    // Warm up (JIT, connections) on a host of its own, then the PING path.
    await race(stores, plan(CLIENTS, "bench-warm-up"));
    await pings(connections, 10);

    const holdRates: number[] = [];
    const pingRates: number[] = [];
    const grantedCounts: number[] = [];
    const usecPerHold: number[] = [];
    let doubleBooked = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const hostId = `bench-host-${round}`;
      const {
        race: result,
        holds,
        pings: ping,
        scripts,
      } = await interleavedRace(stores, plan(CLIENTS, hostId), inspector);
      // Each placeHold is one script call (scripts.ts); a reload after NOSCRIPT would add one.
      if (scripts.calls > 0) usecPerHold.push(scripts.usec / result.completed);
      const state = await readHostState(inspector, prefix, hostId);
      const problems = consistencyProblems(state);
      if (problems.length > 0) log(`INCONSISTENT: ${problems.slice(0, 5).join("; ")}`);
      if (state.allocations.length !== result.granted.length) {
        log(
          `Redis holds ${state.allocations.length} allocations; clients were told ${result.granted.length}`,
        );
      }
      const overbookedUnits = Math.max(
        overbooked(state.allocations, () => 1),
        doubleBookedFromOutcomes(result.granted),
      );
      doubleBooked = Math.max(doubleBooked, overbookedUnits + problems.length);
      grantedCounts.push(result.granted.length);
      holdRates.push(holds.rate);
      pingRates.push(ping.rate);
      log(
        `round ${round + 1}: ${result.completed} placeHold (${holds.describe()}), ` +
          `${result.granted.length} granted, ${scripts.calls} script calls ` +
          `${(scripts.usec / Math.max(1, scripts.calls)).toFixed(1)} µs each in Redis; PING ${ping.describe()}`,
      );
    }

    const holdsPerS = median(holdRates);
    const baseline = median(pingRates);
    return {
      requested: CLIENTS * SLOTS,
      slots: SLOTS,
      granted: grantedCounts.find((g) => g !== SLOTS) ?? SLOTS,
      double_booked: doubleBooked,
      holds_per_s: round(holdsPerS),
      redis_roundtrips_per_s: round(baseline),
      ratio: round(holdsPerS / baseline, 3),
      redis_usec_per_hold: round(median(usecPerHold), 1),
    };
  } finally {
    if (!redis.ownServer) await dropPrefix(inspector, prefix);
    inspector.disconnect();
    await Promise.all(stores.map((s) => s.close()));
    await redis.stop();
  }
}

async function benchMemory() {
  const { MemoryHoldStore } = await import("../src/holds/memory/memory-store.js");
  const holdRates: number[] = [];
  const grantedCounts: number[] = [];
  let doubleBooked = 0;
  for (let r = 0; r < ROUNDS; r++) {
    const store = new MemoryHoldStore();
    const result = await race(
      Array.from({ length: CLIENTS }, () => store),
      plan(CLIENTS, "bench-host"),
    );
    log(
      `round ${r + 1}: ${result.completed} placeHold in ${result.seconds.toFixed(3)} s, ${result.granted.length} granted`,
    );
    holdRates.push(result.completed / result.seconds);
    grantedCounts.push(result.granted.length);
    doubleBooked = Math.max(doubleBooked, doubleBookedFromOutcomes(result.granted));
  }
  return {
    requested: CLIENTS * SLOTS,
    slots: SLOTS,
    granted: grantedCounts.find((g) => g !== SLOTS) ?? SLOTS,
    double_booked: doubleBooked,
    holds_per_s: round(median(holdRates)),
    redis_roundtrips_per_s: null,
    ratio: null,
    redis_usec_per_hold: null,
  };
}

function round(n: number, digits = 0): number {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}

if (STORE !== "redis" && STORE !== "memory") throw new Error(`--store must be redis or memory, not ${STORE}`);
const output = STORE === "memory" ? await benchMemory() : await benchRedis();
process.stdout.write(`${JSON.stringify(output)}\n`);
if (output.granted !== output.slots || output.double_booked !== 0) process.exitCode = 1;
