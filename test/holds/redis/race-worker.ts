/**
 * One racing gateway process for race.test.ts: its own RedisHoldStore (own connection),
 * waits for "go" on stdin so every process starts together, then tries to hold every
 * slot of the plan in its own random order, some asking for one resource and some for
 * any resource of the slot. Prints one JSON line: the holds it was granted.
 *
 * argv: <redis url> <key prefix> <host id> <plan JSON> <seed>
 */
import { createInterface } from "node:readline";
import type { PlaceHoldRequest } from "../../../src/holds/port.js";
import { createRedisGatewayStore } from "../../../src/holds/redis/index.js";

export interface RacePlan {
  readonly resources: ReadonlyArray<{ readonly id: string; readonly capacity: number }>;
  /** Disjoint intervals: each (resource, interval) is one slot of `capacity` units. */
  readonly intervals: ReadonlyArray<{ readonly start: number; readonly end: number }>;
  readonly now: number;
  /** Attempts per (resource, interval) per process. */
  readonly rounds: number;
}

export interface WorkerReport {
  readonly worker: number;
  readonly granted: Array<{ holdId: string; allocations: Array<{ resourceId: string; units: number }> }>;
  refused: number;
}

const [url, prefix, hostId, planJson, seedText] = process.argv.slice(2);
if (url === undefined || prefix === undefined || hostId === undefined || planJson === undefined) {
  throw new Error("usage: race-worker <url> <prefix> <hostId> <plan> <seed>");
}
const plan = JSON.parse(planJson) as RacePlan;
const worker = Number(seedText ?? "0");

// A small deterministic PRNG (mulberry32) so each process has its own, reproducible order.
let seed = (worker + 1) * 0x9e3779b9;
const random = (): number => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};

const store = await createRedisGatewayStore({ url, keyPrefix: prefix });
const attempts: PlaceHoldRequest[] = [];
let n = 0;
for (let round = 0; round < plan.rounds; round++) {
  for (const interval of plan.intervals) {
    for (const resource of plan.resources) {
      const anyResource = (n + worker) % 3 === 0;
      attempts.push({
        hostId,
        holdId: `w${worker}-${n++}`,
        serviceId: "race",
        interval,
        requirements: [
          {
            type: "bay",
            candidates: anyResource ? plan.resources : [resource],
            units: 1,
          },
        ],
        ttlMs: 10 * 60_000,
        now: plan.now,
        owner: { agentKey: `agent-${worker}`, principal: `p-${worker}`, mandates: [] },
        caps: { principalProven: true },
        payload: "{}",
      });
    }
  }
}
for (let i = attempts.length - 1; i > 0; i--) {
  const j = Math.floor(random() * (i + 1));
  [attempts[i], attempts[j]] = [attempts[j] as PlaceHoldRequest, attempts[i] as PlaceHoldRequest];
}

process.stdout.write("ready\n");
await new Promise<void>((resolve) => {
  const lines = createInterface({ input: process.stdin });
  lines.on("line", (line) => {
    if (line.trim() === "go") {
      lines.close();
      resolve();
    }
  });
});

const report: WorkerReport = { worker, granted: [], refused: 0 };
// A few requests in flight at once per process, as a gateway serving many agents would.
const queue = [...attempts];
await Promise.all(
  Array.from({ length: 4 }, async () => {
    for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
      const outcome = await store.placeHold(next);
      if (outcome.ok) {
        report.granted.push({ holdId: outcome.value.holdId, allocations: [...outcome.value.allocations] });
      } else {
        report.refused++;
      }
    }
  }),
);
await store.close();
process.stdout.write(`${JSON.stringify(report)}\n`);
