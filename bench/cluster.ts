/**
 * Scale-out benchmark: `npm run bench:cluster [-- --clients 50 …]`.
 *
 * The race of bench/holds.ts spread over 30 hosts: every client (its own RedisHoldStore, its
 * own connection or Cluster client) asks for every slot of every host once, in its own random
 * order (hosts × resources × intervals slots of capacity 1). It runs first on one Redis node
 * (REDIS_URL when it answers, else a private redis-server), then on a 3-master Redis Cluster
 * (REDIS_CLUSTER_NODES when it answers, else a private one; test/support/redis-cluster.ts).
 * Afterwards every host's allocations are read back and checked.
 *
 * Printed on stdout, one JSON object (progress goes to stderr):
 *   single_per_s         placeHold calls completed per second on one node
 *   cluster_per_s        the same on the cluster
 *   redis_usec_per_hold  Redis's own script time per placeHold on the cluster (INFO
 *                        commandstats EVALSHA+EVAL usec, summed over the masters, divided by
 *                        the calls): capacity per shard ≈ 1e6 / this, holds/s of Redis CPU
 *   single_redis_usec_per_hold  the same on the one node
 *   redis_cpu_usec_per_hold      the masters' process CPU (INFO cpu) per hold on the cluster:
 *                                script, request parsing and replies; unlike script time it
 *                                does not count a server's waits for a core
 *   single_redis_cpu_usec_per_hold  the same on the one node
 *   shards               masters in the cluster
 *   hosts_per_shard      how the 30 hosts' hash tags fell on the masters
 *   double_booked        units beyond capacity plus inconsistencies, summed over both runs
 * On this 2-core machine the benchmark's own Node process is the ceiling for both runs, so
 * cluster_per_s does not show the shards' added capacity; redis_usec_per_hold does.
 * Exits non-zero when a run double-booked or granted other than every slot once.
 */
import { parseArgs } from "node:util";
import { isCluster, openRedis, type RedisClient } from "../src/redis/client.js";
import type { HoldRecord, PlaceHoldRequest } from "../src/holds/port.js";
import { createRedisGatewayStore, type RedisHoldStore } from "../src/holds/redis/index.js";
import { RedisKeys } from "../src/holds/redis/keys.js";
import { consistencyProblems, overbooked, readHostState } from "../test/holds/redis/inspect.js";
import { runRace, scriptStats, shuffled, slotRequest, type RaceOutcome } from "../test/support/hold-race.js";
import { dropPrefix, startTestRedis, uniquePrefix } from "../test/support/redis.js";
import { startTestRedisCluster } from "../test/support/redis-cluster.js";

const { values } = parseArgs({
  options: {
    clients: { type: "string", default: "100" },
    hosts: { type: "string", default: "30" },
    resources: { type: "string", default: "2" },
    intervals: { type: "string", default: "6" },
  },
});
const CLIENTS = Number(values.clients);
const HOSTS = Array.from({ length: Number(values.hosts) }, (_, i) => `shop-${i + 1}`);
const RESOURCES = Array.from({ length: Number(values.resources) }, (_, i) => `bay-${i + 1}`);
const T0 = Date.UTC(2030, 0, 7, 9, 0, 0);
const SLOT_MS = 30 * 60_000;
const INTERVALS = Array.from({ length: Number(values.intervals) }, (_, i) => ({
  start: T0 + i * SLOT_MS,
  end: T0 + (i + 1) * SLOT_MS,
}));
const SLOTS = HOSTS.length * RESOURCES.length * INTERVALS.length;
const NOW = T0 - 60 * 60_000;

const log = (message: string): void => void process.stderr.write(`[bench:cluster] ${message}\n`);

function plan(run: string, client: number): PlaceHoldRequest[] {
  return shuffled(
    HOSTS.flatMap((host) =>
      RESOURCES.flatMap((resourceId) =>
        INTERVALS.map((interval) =>
          slotRequest({ hostId: `${run}-${host}`, client, resourceId, interval, now: NOW }),
        ),
      ),
    ),
  );
}

function race(stores: readonly RedisHoldStore[], run: string): Promise<RaceOutcome> {
  return runRace(
    stores,
    stores.map((_, client) => plan(run, client)),
  );
}

/** Units beyond capacity and inconsistencies, from Redis and from what the clients were told. */
async function doubleBooked(inspector: RedisClient, prefix: string, run: string, granted: HoldRecord[]) {
  let bad = 0;
  for (const host of HOSTS) {
    const hostId = `${run}-${host}`;
    const state = await readHostState(inspector, prefix, hostId);
    const problems = consistencyProblems(state);
    if (problems.length > 0) log(`${hostId} INCONSISTENT: ${problems.slice(0, 3).join("; ")}`);
    const told = granted
      .filter((h) => h.hostId === hostId)
      .flatMap((h) =>
        h.allocations.map((a) => ({
          resourceId: a.resourceId,
          holdId: h.holdId,
          units: a.units,
          ...h.interval,
        })),
      );
    bad +=
      Math.max(
        overbooked(state.allocations, () => 1),
        overbooked(told, () => 1),
      ) + problems.length;
  }
  return bad;
}

/** Which master owns each host's slot (its hash tag), as counts per master. */
async function hostsPerShard(client: RedisClient, prefix: string, run: string): Promise<number[]> {
  if (!isCluster(client)) return [HOSTS.length];
  const masters = client.nodes("master").map((n) => `${n.options.host}:${n.options.port}`);
  const ranges = (await client.cluster("SLOTS")) as unknown as Array<[number, number, [string, number]]>;
  const counts = new Map(masters.map((m) => [m, 0]));
  for (const host of HOSTS) {
    const key = `${new RedisKeys(prefix).host(`${run}-${host}`)}occ:x`;
    const slot = Number(await client.cluster("KEYSLOT", key));
    const owner = ranges.find(([from, to]) => slot >= from && slot <= to)?.[2];
    const id = owner === undefined ? "?" : `${owner[0]}:${owner[1]}`;
    counts.set(id, (counts.get(id) ?? 0) + 1);
  }
  return [...counts.values()];
}

async function runOn(url: string, label: string) {
  const prefix = uniquePrefix("bench-cluster");
  const stores: RedisHoldStore[] = [];
  const inspector = openRedis(url);
  try {
    for (let i = 0; i < CLIENTS; i++) stores.push(await createRedisGatewayStore({ url, keyPrefix: prefix }));
    log(`${label}: ${CLIENTS} stores connected`);
    await race(stores, "warm-up");
    await inspector.ping();
    const s0 = await scriptStats(inspector);
    const result = await race(stores, "race");
    const s1 = await scriptStats(inspector);
    const bad = await doubleBooked(inspector, prefix, "race", result.granted);
    const perS = result.completed / result.seconds;
    const usec = (s1.usec - s0.usec) / result.completed;
    const cpuUsec = (s1.cpuUsec - s0.cpuUsec) / result.completed;
    const spread = await hostsPerShard(inspector, prefix, "race");
    log(
      `${label}: ${result.completed} placeHold in ${result.seconds.toFixed(2)} s (${perS.toFixed(0)}/s), ` +
        `${result.granted.length}/${SLOTS} granted, ${usec.toFixed(1)} µs of script time each, ` +
        `hosts per shard ${JSON.stringify(spread)}, double-booked ${bad}`,
    );
    if (result.granted.length !== SLOTS) log(`${label}: granted ${result.granted.length}, expected ${SLOTS}`);
    return { perS, usec, cpuUsec, spread, bad: bad + Math.abs(result.granted.length - SLOTS) };
  } finally {
    await dropPrefix(inspector, prefix);
    inspector.disconnect();
    await Promise.all(stores.map((s) => s.close()));
  }
}

const round = (n: number, digits = 0): number => Math.round(n * 10 ** digits) / 10 ** digits;

const single = await startTestRedis();
log(`one node at ${single.url} (${single.ownServer ? "own server" : "REDIS_URL"})`);
const one = await runOn(single.url, "single").finally(() => single.stop());
const cluster = await startTestRedisCluster();
log(`cluster at ${cluster.nodes} (${cluster.ownServer ? "own cluster" : "REDIS_CLUSTER_NODES"})`);
const many = await runOn(cluster.url, "cluster").finally(() => cluster.stop());

const output = {
  single_per_s: round(one.perS),
  cluster_per_s: round(many.perS),
  redis_usec_per_hold: round(many.usec, 1),
  // The same measure on the one node: a cluster node also checks every command a script runs
  // against its slot map, and here shares two cores with five other redis-servers.
  single_redis_usec_per_hold: round(one.usec, 1),
  // Redis process CPU per hold (every master's user + sys time over the race, which also
  // covers reading requests and writing replies): the figure to size shards with.
  redis_cpu_usec_per_hold: round(many.cpuUsec, 1),
  single_redis_cpu_usec_per_hold: round(one.cpuUsec, 1),
  shards: many.spread.length,
  hosts_per_shard: many.spread,
  double_booked: one.bad + many.bad,
};
process.stdout.write(`${JSON.stringify(output)}\n`);
if (output.double_booked !== 0) process.exitCode = 1;
