/**
 * A real Redis for tests and the benchmark. `startTestRedis()` uses REDIS_URL when it is
 * set and answers PING; otherwise it starts its own `redis-server` on a free loopback port
 * (no persistence), so the contract suite always runs against a real server.
 * `startOwnRedis()` always starts a private server, for fault tests that kill or restart
 * it: those must never touch a shared one. Tests never FLUSHALL: each uses its own key
 * prefix (`uniquePrefix()`), so a shared server is left as it was found apart from keys
 * under that prefix.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import type { Redis } from "ioredis";
import { eachMaster, isCluster, type RedisClient } from "../../src/redis/client.js";
import { createServer, Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface TestRedis {
  readonly url: string;
  /** True when this process started the server (it may then be killed or restarted). */
  readonly ownServer: boolean;
  stop(): Promise<void>;
  /** Own servers only: SHUTDOWN NOSAVE, then a fresh server on the same port. */
  restart?(): Promise<void>;
  /** Own servers only: stop answering until `start()` (kill without restarting). */
  kill?(): Promise<void>;
  start?(): Promise<void>;
}

const NOT_INSTALLED =
  "no Redis at REDIS_URL and redis-server is not installed: apt-get install redis-server " +
  "(or set REDIS_URL=redis://host:port to a server the tests may write prefixed keys to)";

/** A key prefix no other test or run shares. */
export function uniquePrefix(label = "t"): string {
  return `test:${label}:${process.pid}:${randomBytes(6).toString("hex")}:`;
}

/**
 * Deletes every key under a test's own prefix (SCAN + UNLINK), leaving a shared server
 * as it was found. Never FLUSHDB: other keys on the server are not the test's.
 */
export async function dropPrefix(redis: RedisClient, prefix: string): Promise<number> {
  // On a cluster each master holds its own keys, and one UNLINK may only name keys of one
  // slot: walk every master and unlink key by key (pipelined).
  const counts = await eachMaster(redis, (node) => dropOnNode(node, prefix, isCluster(redis)));
  return counts.reduce((a, b) => a + b, 0);
}

async function dropOnNode(node: Redis, prefix: string, keyByKey: boolean): Promise<number> {
  const pattern = `${prefix.replace(/[*?[\]\\]/g, (c) => `\\${c}`)}*`;
  let cursor = "0";
  let dropped = 0;
  do {
    const [next, keys] = await node.scan(cursor, "MATCH", pattern, "COUNT", "1000");
    cursor = next;
    if (keys.length === 0) continue;
    if (!keyByKey) {
      dropped += await node.unlink(...keys);
      continue;
    }
    const pipeline = node.pipeline();
    for (const key of keys) pipeline.unlink(key);
    for (const [error, n] of (await pipeline.exec()) ?? []) if (error === null) dropped += Number(n);
  } while (cursor !== "0");
  return dropped;
}

export async function startTestRedis(): Promise<TestRedis> {
  const fromEnv = process.env["REDIS_URL"];
  if (fromEnv !== undefined && fromEnv !== "") {
    const { host, port } = hostPort(fromEnv);
    if (await pingOnce(host, port, 1000)) {
      return { url: fromEnv, ownServer: false, stop: () => Promise.resolve() };
    }
    if (!redisServerInstalled()) {
      throw new Error(`REDIS_URL=${fromEnv} does not answer PING, and ${NOT_INSTALLED}`);
    }
  }
  return startOwnRedis();
}

export interface OwnRedisOptions {
  /**
   * Keep data across a restart: an append-only file fsynced on every write, in a fresh
   * temporary directory (removed by stop()). Off by default: no persistence at all.
   */
  readonly appendOnly?: boolean;
}

/** Always a private redis-server on a free loopback port (for fault tests). */
export async function startOwnRedis(options: OwnRedisOptions = {}): Promise<TestRedis> {
  if (!redisServerInstalled()) throw new Error(NOT_INSTALLED);
  const port = await freePort();
  const dir = options.appendOnly === true ? mkdtempSync(join(tmpdir(), "redis-test-")) : undefined;
  const args = [
    "--port",
    String(port),
    "--bind",
    "127.0.0.1",
    "--save",
    "",
    ...(dir === undefined
      ? ["--appendonly", "no"]
      : ["--appendonly", "yes", "--appendfsync", "always", "--dir", dir]),
  ];
  let child: ChildProcess | undefined = await launch(port, args);

  /** Waits up to graceMs for the process to exit on its own, then kills it. */
  const stopChild = async (graceMs = 0): Promise<void> => {
    const running = child;
    child = undefined;
    if (running === undefined || running.exitCode !== null || running.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => running.once("exit", () => resolve()));
    if (graceMs > 0) await Promise.race([exited, sleep(graceMs)]);
    running.kill("SIGKILL");
    await exited;
  };
  const start = async (): Promise<void> => {
    if (child !== undefined) return;
    child = await launch(port, args);
  };

  return {
    url: `redis://127.0.0.1:${port}`,
    ownServer: true,
    stop: async () => {
      await stopChild();
      if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
    },
    kill: () => stopChild(),
    start,
    restart: async () => {
      // SHUTDOWN NOSAVE as an operator would, then the same command line on the same port.
      await sendRaw("127.0.0.1", port, "SHUTDOWN NOSAVE\r\n").catch(() => undefined);
      await stopChild(2000);
      await start();
    },
  };
}

export function redisServerInstalled(): boolean {
  const probe = spawnSync("redis-server", ["--version"], { stdio: "ignore" });
  return probe.error === undefined && probe.status === 0;
}

export async function launch(port: number, args: readonly string[]): Promise<ChildProcess> {
  const child = spawn("redis-server", args, { stdio: ["ignore", "pipe", "pipe"] });
  // redis-server logs to stdout; keep the tail for the error message.
  let log = "";
  const keep = (chunk: Buffer): void => void (log = (log + chunk.toString()).slice(-2000));
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  // A test run must not leave servers behind, even when it is interrupted.
  const reap = (): void => void child.kill("SIGKILL");
  process.once("exit", reap);
  child.once("exit", () => process.removeListener("exit", reap));

  const deadline = Date.now() + 5000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) break;
    if (await pingOnce("127.0.0.1", port, 200)) return child;
    await sleep(20);
  }
  child.kill("SIGKILL");
  throw new Error(`redis-server did not answer PING on 127.0.0.1:${port} within 5 s: ${log.trim()}`);
}

function hostPort(url: string): { host: string; port: number } {
  const parsed = new URL(url);
  return { host: parsed.hostname || "127.0.0.1", port: Number(parsed.port || 6379) };
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** PING over a raw socket, so the harness does not depend on the client under test. */
export async function pingOnce(host: string, port: number, timeoutMs: number): Promise<boolean> {
  const reply = await sendRaw(host, port, "PING\r\n", timeoutMs).catch(() => "");
  return reply.startsWith("+PONG") || reply.startsWith("-NOAUTH");
}

export function sendRaw(host: string, port: number, line: string, timeoutMs = 1000): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = new Socket();
    let data = "";
    const done = (error?: Error): void => {
      socket.destroy();
      if (error) reject(error);
      else resolve(data);
    };
    socket.setTimeout(timeoutMs, () => done(new Error("timeout")));
    socket.once("error", (error) => done(error));
    socket.on("data", (chunk) => {
      data += chunk.toString();
      if (data.includes("\r\n")) done();
    });
    socket.once("close", () => done());
    socket.connect(port, host, () => socket.write(line));
  });
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
