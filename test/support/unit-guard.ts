/**
 * The unit lane's setup file (vitest.config.ts): a unit test starts no process and reaches no
 * Redis. test/support/lanes.ts files a test in `unit` when nothing it imports says otherwise;
 * should a marker escape that scan, this makes the test fail saying which lane it belongs in,
 * instead of the unit lane quietly waiting on a server.
 *
 * Spawning (child_process) throws, and so does a connection to a port of the shared Redis
 * servers (6379, REDIS_URL's, the cluster's nodes). Loopback fakes on other ports are fine.
 */
import childProcess from "node:child_process";
import { syncBuiltinESMExports } from "node:module";
import net from "node:net";

const GUARDED = Symbol.for("booking-gateway.unit-guard");

function refuse(what: string, lane: string): Error {
  const message =
    `unit lane: this test ${what}; it belongs in the ${lane} lane. ` +
    "test/support/lanes.ts decides a file's lane from what it imports: import the helper " +
    "(test/support/redis.ts, mcp.ts, …) or name what you use so the scan sees it.";
  process.stderr.write(`\n${message}\n`);
  return new Error(message);
}

function redisPorts(): Set<number> {
  const ports = new Set<number>([6379]);
  const url = process.env["REDIS_URL"];
  if (url !== undefined) {
    try {
      const port = new URL(url).port;
      if (port !== "") ports.add(Number(port));
    } catch {
      // not a URL: nothing to guard
    }
  }
  const nodes = process.env["TEST_REDIS_CLUSTER_NODES"] ?? process.env["REDIS_CLUSTER_NODES"] ?? "";
  for (const node of nodes.split(",")) {
    const port = Number(node.trim().split(":").pop());
    if (Number.isInteger(port) && port > 0) ports.add(port);
  }
  return ports;
}

const marked = globalThis as { [GUARDED]?: true };
if (marked[GUARDED] === undefined) {
  marked[GUARDED] = true;

  const cp = childProcess as unknown as Record<string, unknown>;
  for (const name of ["spawn", "spawnSync", "exec", "execSync", "execFile", "execFileSync", "fork"]) {
    cp[name] = () => {
      throw refuse(`started a child process (child_process.${name})`, "processes");
    };
  }
  // `import { spawn } from "node:child_process"` reads the patched functions from here on.
  syncBuiltinESMExports();

  const ports = redisPorts();
  const proto = net.Socket.prototype as unknown as Record<"connect", (...args: unknown[]) => net.Socket>;
  const connect = proto.connect;
  proto.connect = function guardedConnect(this: net.Socket, ...args: unknown[]) {
    const first = args[0];
    const target: unknown = Array.isArray(first) ? first[0] : first;
    const port =
      typeof target === "object" && target !== null && "port" in target
        ? Number(target.port)
        : typeof target === "number" || typeof target === "string"
          ? Number(target)
          : NaN;
    if (ports.has(port)) throw refuse(`connected to Redis on port ${port}`, "redis (or cluster)");
    return connect.apply(this, args);
  };
}
