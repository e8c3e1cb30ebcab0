/**
 * The hold race shared by the benchmarks (bench/holds.ts, bench/cluster.ts) and the cluster
 * tests: single-unit requests for one resource and interval each, every client asking for
 * every slot once in its own random order, and a runner that sends each client's requests one
 * after another, all clients at once; and what the race cost Redis (scriptStats).
 */
import { performance } from "node:perf_hooks";
import type { Redis } from "ioredis";
import type { GatewayStore, HoldRecord, PlaceHoldRequest } from "../../src/holds/port.js";
import { eachMaster, type RedisClient } from "../../src/redis/client.js";

export interface RaceOutcome {
  readonly granted: HoldRecord[];
  readonly completed: number;
  readonly seconds: number;
}

/** Fisher-Yates: a client's own order. */
export function shuffled<T>(items: readonly T[]): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

export interface SlotRequestOptions {
  readonly hostId: string;
  readonly client: number;
  readonly resourceId: string;
  readonly interval: { readonly start: number; readonly end: number };
  readonly now: number;
  readonly ttlMs?: number;
  readonly maxActivePerAgent?: number;
  readonly payload?: string;
}

/** One unit of one resource over one interval, asked by client `client` (its own agent). */
export function slotRequest(o: SlotRequestOptions): PlaceHoldRequest {
  return {
    hostId: o.hostId,
    holdId: `c${o.client}-${o.resourceId}-${o.interval.start}`,
    serviceId: "bench",
    interval: { start: o.interval.start, end: o.interval.end },
    requirements: [{ type: "bay", candidates: [{ id: o.resourceId, capacity: 1 }], units: 1 }],
    ttlMs: o.ttlMs ?? 10 * 60_000,
    now: o.now,
    owner: { agentKey: `agent-${o.client}`, principal: `principal-${o.client}`, mandates: [] },
    caps: { principalProven: true, maxActivePerAgent: o.maxActivePerAgent ?? 100_000 },
    payload: o.payload ?? '{"offer":"bench"}',
  };
}

/** Every client runs its plan (or the slice [from, to) of it), all clients at once. */
export async function runRace(
  stores: readonly GatewayStore[],
  plans: readonly (readonly PlaceHoldRequest[])[],
  from = 0,
  to = Number.POSITIVE_INFINITY,
): Promise<RaceOutcome> {
  const granted: HoldRecord[] = [];
  let completed = 0;
  const started = performance.now();
  await Promise.all(
    stores.map(async (store, client) => {
      for (const request of (plans[client] ?? []).slice(from, to)) {
        const outcome = await store.placeHold(request);
        completed++;
        if (outcome.ok) granted.push(outcome.value);
      }
    }),
  );
  return { granted, completed, seconds: (performance.now() - started) / 1000 };
}

/**
 * Redis's own accounting of script calls, summed over every master (one server is its own):
 * INFO commandstats EVALSHA and EVAL calls and the usec spent executing them (network and
 * parsing excluded), and the servers' process CPU. Read around a race, the deltas are what one
 * placeHold costs Redis: the number that decides capacity per shard. On a shared
 * server other clients' work counts too; the benches start their own unless told otherwise.
 */
export interface ScriptStats {
  readonly calls: number;
  /** Time inside EVALSHA/EVAL (wall clock: a server preempted mid-script counts the wait). */
  readonly usec: number;
  /** The servers' own CPU time (INFO cpu, user + sys): what a shard's core actually spends. */
  readonly cpuUsec: number;
}

/** EVALSHA + EVAL calls and usec, and process CPU, summed over every master. */
export async function scriptStats(client: RedisClient): Promise<ScriptStats> {
  const perNode = await eachMaster(client, async (node: Redis) => {
    const info = await node.info("commandstats");
    const cpu = await node.info("cpu");
    let calls = 0;
    let usec = 0;
    for (const name of ["evalsha", "eval"]) {
      const m = new RegExp(`cmdstat_${name}:calls=(\\d+),usec=(\\d+)`).exec(info);
      calls += Number(m?.[1] ?? 0);
      usec += Number(m?.[2] ?? 0);
    }
    const seconds = (field: string): number => Number(new RegExp(`${field}:([0-9.]+)`).exec(cpu)?.[1] ?? 0);
    return { calls, usec, cpuUsec: (seconds("used_cpu_user") + seconds("used_cpu_sys")) * 1e6 };
  });
  return perNode.reduce(
    (a, b) => ({ calls: a.calls + b.calls, usec: a.usec + b.usec, cpuUsec: a.cpuUsec + b.cpuUsec }),
    {
      calls: 0,
      usec: 0,
      cpuUsec: 0,
    },
  );
}
