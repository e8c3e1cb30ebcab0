/**
 * Concurrency across PROCESSES (§4.1 "two concurrent holds can never take the same
 * resource for overlapping time"): four separate Node processes, each with its own
 * connection, race on one Redis for the same slots over several resources. Afterwards
 * every allocation is read back from Redis: no resource is used beyond its capacity, the
 * state is consistent, and exactly as many holds were granted as there were slot units.
 * The same race runs on one server and on a Redis Cluster (what must hold: the race
 * passes on the cluster): the workers get the cluster URL and their own Cluster clients.
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { openRedis } from "../../../src/redis/client.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dropPrefix, startTestRedis, type TestRedis, uniquePrefix } from "../../support/redis.js";
import { startTestRedisCluster, type TestRedisCluster } from "../../support/redis-cluster.js";
import { consistencyProblems, overbooked, readHostState } from "./inspect.js";
import type { RacePlan, WorkerReport } from "./race-worker.js";

const WORKERS = 4;
const T0 = Date.UTC(2030, 0, 7, 9, 0, 0);
const HOUR = 3_600_000;

const plan: RacePlan = {
  resources: [
    { id: "bay-1", capacity: 1 },
    { id: "bay-2", capacity: 1 },
    { id: "studio", capacity: 2 },
    { id: "bay-3", capacity: 1 },
  ],
  intervals: Array.from({ length: 6 }, (_, i) => ({ start: T0 + i * HOUR, end: T0 + (i + 1) * HOUR })),
  now: T0 - HOUR,
  rounds: 2,
};
const capacity = new Map(plan.resources.map((r) => [r.id, r.capacity]));
const slotUnits = plan.intervals.length * plan.resources.reduce((sum, r) => sum + r.capacity, 0);

let redis: TestRedis | undefined;
let cluster: TestRedisCluster | undefined;
beforeAll(async () => {
  [redis, cluster] = await Promise.all([startTestRedis(), startTestRedisCluster()]);
}, 60_000);
afterAll(async () => {
  await Promise.all([redis?.stop(), cluster?.stop()]);
});

function startWorker(url: string, prefix: string, hostId: string, index: number) {
  const script = fileURLToPath(new URL("./race-worker.ts", import.meta.url));
  const child = spawn(
    process.execPath,
    ["--import", "tsx", script, url, prefix, hostId, JSON.stringify(plan), String(index)],
    {
      stdio: ["pipe", "pipe", "pipe"],
    },
  );
  let out = "";
  let err = "";
  child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (err += chunk.toString()));
  const ready = new Promise<void>((resolve, reject) => {
    const check = (): void => {
      if (out.includes("ready\n")) resolve();
    };
    child.stdout.on("data", check);
    child.once("exit", (code) => reject(new Error(`worker ${index} exited (${code}) before ready: ${err}`)));
  });
  const done = new Promise<WorkerReport>((resolve, reject) => {
    child.once("exit", (code) => {
      const last = out.trim().split("\n").pop() ?? "";
      if (code !== 0) reject(new Error(`worker ${index} failed (${code}): ${err}`));
      else resolve(JSON.parse(last) as WorkerReport);
    });
  });
  return { ready, done, go: () => child.stdin.end("go\n") };
}

describe.each([
  { kind: "one Redis server", url: () => redis?.url },
  { kind: "a Redis Cluster", url: () => cluster?.url },
])("RedisHoldStore across processes on $kind", ({ url: urlOf }) => {
  it("never allocates a resource beyond its capacity when four processes race for the same slots", async () => {
    const url = urlOf();
    if (url === undefined) throw new Error("no test Redis");
    const prefix = uniquePrefix("race");
    const hostId = `race-${Date.now()}`;
    const workers = Array.from({ length: WORKERS }, (_, i) => startWorker(url, prefix, hostId, i));
    await Promise.all(workers.map((w) => w.ready));
    for (const w of workers) w.go();
    const reports = await Promise.all(workers.map((w) => w.done));

    const granted = reports.flatMap((r) => r.granted);
    const attempts = WORKERS * plan.rounds * plan.intervals.length * plan.resources.length;
    expect(granted.length + reports.reduce((sum, r) => sum + r.refused, 0)).toBe(attempts);
    expect(granted.length).toBe(slotUnits);

    const client = openRedis(url);
    try {
      const state = await readHostState(client, prefix, hostId);
      expect(state.allocations).toHaveLength(slotUnits);
      expect(overbooked(state.allocations, (id) => capacity.get(id) ?? 0)).toBe(0);
      expect(consistencyProblems(state)).toEqual([]);
      // What the processes were told matches what Redis holds.
      expect(new Set(state.allocations.map((a) => a.holdId))).toEqual(new Set(granted.map((g) => g.holdId)));
    } finally {
      await dropPrefix(client, prefix);
      client.disconnect();
    }
  }, 30_000);
});
