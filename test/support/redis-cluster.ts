/**
 * A real Redis Cluster for tests and benchmarks, from Debian's redis-server in
 * cluster mode, created with `redis-cli --cluster create` as an operator would.
 *
 * `startTestRedisCluster()` uses REDIS_CLUSTER_NODES (host:port,…; .ci/run starts a 3-master,
 * 3-replica cluster and sets it) when the cluster answers with cluster_state:ok; otherwise it
 * starts its own. `startOwnRedisCluster()` always starts a private one, for tests that change
 * the topology (a failover must never touch a cluster other runs share).
 *
 * Tests on a shared cluster use their own key prefix (`uniquePrefix()`) and clean up with
 * `dropPrefix`, which walks every master; never FLUSHALL.
 */
import { spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { clusterUrlFromNodes } from "../../src/redis/client.js";
import { freePort, launch, redisServerInstalled, sendRaw, sleep } from "./redis.js";

export interface ClusterNodeProcess {
  readonly port: number;
}

export interface TestRedisCluster {
  /** `redis+cluster://127.0.0.1:p1,…` (src/redis/client.ts). */
  readonly url: string;
  /** `127.0.0.1:p1,…`, as REDIS_CLUSTER_NODES takes it. */
  readonly nodes: string;
  readonly ports: readonly number[];
  readonly ownServer: boolean;
  stop(): Promise<void>;
  /** Own clusters only: SIGKILL the node on this port (a hard crash; nothing restarts it). */
  kill?(port: number): Promise<void>;
}

const NOT_INSTALLED =
  "no Redis Cluster at REDIS_CLUSTER_NODES and redis-server/redis-cli are not installed: " +
  "apt-get install redis-server (or set REDIS_CLUSTER_NODES=host:port,… to a cluster the tests may write prefixed keys to)";

export async function startTestRedisCluster(): Promise<TestRedisCluster> {
  // Under vitest, test/support/env-setup.ts has moved it to TEST_REDIS_CLUSTER_NODES.
  const fromEnv = process.env["TEST_REDIS_CLUSTER_NODES"] ?? process.env["REDIS_CLUSTER_NODES"];
  if (fromEnv !== undefined && fromEnv.trim() !== "") {
    const ports = fromEnv.split(",").map((entry) => Number(entry.trim().split(":").pop()));
    const first = fromEnv.split(",")[0]?.trim() ?? "";
    const host = first.slice(0, first.lastIndexOf(":")) || "127.0.0.1";
    if (await clusterOk(host, ports[0] ?? 0)) {
      return {
        url: clusterUrlFromNodes(fromEnv),
        nodes: fromEnv.trim(),
        ports,
        ownServer: false,
        stop: () => Promise.resolve(),
      };
    }
  }
  return startOwnRedisCluster();
}

export interface OwnClusterOptions {
  readonly masters?: number;
  readonly replicasPerMaster?: number;
  /** cluster-node-timeout: how long before a silent master is failed over (default 2000). */
  readonly nodeTimeoutMs?: number;
}

/** A private cluster on free loopback ports (default 3 masters, 1 replica each). */
export async function startOwnRedisCluster(options: OwnClusterOptions = {}): Promise<TestRedisCluster> {
  if (!redisServerInstalled() || !redisCliInstalled()) throw new Error(NOT_INSTALLED);
  const masters = options.masters ?? 3;
  const replicas = options.replicasPerMaster ?? 1;
  const count = masters * (1 + replicas);
  const dir = mkdtempSync(join(tmpdir(), "redis-cluster-"));
  const children: ChildProcess[] = [];
  const ports: number[] = [];
  const stop = async (): Promise<void> => {
    await Promise.all(
      children.map(async (child) => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
        child.kill("SIGKILL");
        await exited;
      }),
    );
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    for (let i = 0; i < count; i++) {
      const port = await freePort();
      ports.push(port);
      children.push(
        await launch(port, [
          "--port",
          String(port),
          "--bind",
          "127.0.0.1",
          "--save",
          "",
          "--appendonly",
          "no",
          "--cluster-enabled",
          "yes",
          "--cluster-config-file",
          join(dir, `nodes-${port}.conf`),
          "--cluster-node-timeout",
          String(options.nodeTimeoutMs ?? 2000),
          "--dir",
          dir,
        ]),
      );
    }
    const create = spawnSync(
      "redis-cli",
      [
        "--cluster",
        "create",
        ...ports.map((p) => `127.0.0.1:${p}`),
        "--cluster-replicas",
        String(replicas),
        "--cluster-yes",
      ],
      { encoding: "utf8", timeout: 30_000 },
    );
    if (create.status !== 0) {
      throw new Error(`redis-cli --cluster create failed: ${create.stdout}${create.stderr}`);
    }
    await waitForCluster(ports, count);
  } catch (error) {
    await stop();
    throw error;
  }
  const nodes = ports.map((p) => `127.0.0.1:${p}`).join(",");
  const kill = async (port: number): Promise<void> => {
    const child = children[ports.indexOf(port)];
    if (child === undefined) throw new Error(`no node of this cluster on port ${port}`);
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    child.kill("SIGKILL");
    await exited;
  };
  return { url: clusterUrlFromNodes(nodes), nodes, ports, ownServer: true, stop, kill };
}

/** Every node says cluster_state:ok and knows every other node; every replica is in sync. */
async function waitForCluster(ports: readonly number[], count: number, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = "";
  while (Date.now() < deadline) {
    let ready = true;
    for (const port of ports) {
      const info = await sendRaw("127.0.0.1", port, "CLUSTER INFO\r\n", 1000).catch(() => "");
      last = info;
      const known = Number(/cluster_known_nodes:(\d+)/.exec(info)?.[1] ?? 0);
      if (!info.includes("cluster_state:ok") || known < count) {
        ready = false;
        break;
      }
      // A replica that has not finished its first sync refuses to fail over (its data is
      // "too old"): a failover test right after start would wait forever.
      if (!(await replicaInSync(port))) {
        ready = false;
        break;
      }
    }
    if (ready) return;
    await sleep(100);
  }
  throw new Error(`the Redis Cluster did not become ready within ${timeoutMs} ms: ${last.trim()}`);
}

/**
 * A replica whose link to its master is up (ROLE: "connected"), or a master that counts each of
 * its replicas online. The two views settle apart: a master only counts a replica for WAIT once
 * its first REPLCONF ACK after the sync arrives, so a replica that already reads "connected" can
 * leave a WAIT right after start unacknowledged.
 */
async function replicaInSync(port: number): Promise<boolean> {
  const client = new Redis({ host: "127.0.0.1", port, lazyConnect: true, maxRetriesPerRequest: 0 });
  client.on("error", () => undefined);
  try {
    await client.connect();
    const reply = (await client.call("ROLE")) as unknown[];
    if (reply[0] === "slave") return reply[3] === "connected";
    const replication = await client.info("replication");
    const states = [...replication.matchAll(/^slave\d+:.*state=(\w+)/gm)].map((m) => m[1]);
    return states.every((state) => state === "online");
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}

async function clusterOk(host: string, port: number): Promise<boolean> {
  const client = new Redis({ host, port, lazyConnect: true, connectTimeout: 1000, maxRetriesPerRequest: 0 });
  client.on("error", () => undefined);
  try {
    await client.connect();
    const info = await client.cluster("INFO");
    return info.includes("cluster_state:ok");
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}

function redisCliInstalled(): boolean {
  const probe = spawnSync("redis-cli", ["--version"], { stdio: "ignore" });
  return probe.error === undefined && probe.status === 0;
}

/** A node's role and the master it replicates, from ROLE. */
export async function roleOf(port: number): Promise<{ role: string; masterPort?: number }> {
  const client = new Redis({ host: "127.0.0.1", port, lazyConnect: true, maxRetriesPerRequest: 0 });
  client.on("error", () => undefined);
  try {
    await client.connect();
    const reply = (await client.call("ROLE")) as unknown[];
    const role = String(reply[0]);
    if (role === "slave") return { role, masterPort: Number(reply[2]) };
    return { role };
  } finally {
    client.disconnect();
  }
}
