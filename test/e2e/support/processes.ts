/**
 * Gateway processes for the Redis suite: the real CLI (`booking-gateway serve`, built once for
 * the run: test/support/gateway-cli.ts) as separate Node processes sharing one Redis and one data dir, behind a small proxy that is
 * their one public origin (PUBLIC_ORIGIN), as a load balancer would be. The proxy sends each
 * request to the process the test names in x-e2e-backend, or round-robin, so a test can hold
 * at one process and confirm at the other.
 */
import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { createServer, request as httpRequest } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { gatewayCli } from "../../support/gateway-cli.js";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
export const BACKEND_HEADER = "x-e2e-backend";

export interface GatewayProcess {
  readonly name: string;
  readonly url: string;
  readonly child: ChildProcess;
  readonly output: string[];
  /** SIGTERM (graceful shutdown), then SIGKILL after graceMs. */
  stop(graceMs?: number): Promise<number | null>;
}

export interface ProcessEnv {
  readonly publicOrigin: string;
  readonly redisUrl: string;
  readonly redisKeyPrefix: string;
  readonly dataDir: string;
  readonly operatorToken: string;
}

export async function startGatewayProcess(
  name: string,
  env: ProcessEnv,
  configFile?: string,
): Promise<GatewayProcess> {
  const args = [
    ...(await gatewayCli()),
    "serve",
    ...(configFile === undefined ? [] : ["--config", configFile]),
  ];
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: "0",
      PUBLIC_ORIGIN: env.publicOrigin,
      REDIS_URL: env.redisUrl,
      REDIS_KEY_PREFIX: env.redisKeyPrefix,
      GATEWAY_DATA_DIR: env.dataDir,
      OPERATOR_TOKEN: env.operatorToken,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const output: string[] = [];
  const reap = (): void => void child.kill("SIGKILL");
  process.once("exit", reap);
  child.once("exit", () => process.removeListener("exit", reap));

  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${name} did not start in 30 s:\n${output.join("")}`)),
      30_000,
    );
    const onData = (chunk: Buffer) => {
      output.push(chunk.toString());
      const m = /serving \d+ host\(s\) on (http:\/\/\S+) /.exec(output.join(""));
      if (m !== null) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", (c: Buffer) => output.push(c.toString()));
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited with ${code} before serving:\n${output.join("")}`));
    });
  });
  return {
    name,
    url,
    child,
    output,
    stop: async (graceMs = 10_000) => {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}

export interface BalancingProxy {
  readonly origin: string;
  /** Backends by name; replace one to point at a restarted process. */
  readonly backends: Map<string, string>;
  /** Which backend served each request, in order. */
  readonly served: string[];
  close(): Promise<void>;
}

export async function startProxy(): Promise<BalancingProxy> {
  const backends = new Map<string, string>();
  const served: string[] = [];
  let next = 0;
  const server = createServer((req, res) => {
    const names = [...backends.keys()];
    const asked = req.headers[BACKEND_HEADER];
    const name = typeof asked === "string" && backends.has(asked) ? asked : names[next++ % names.length];
    const target = name === undefined ? undefined : backends.get(name);
    if (name === undefined || target === undefined) {
      res.writeHead(502).end();
      return;
    }
    served.push(name);
    const url = new URL(req.url ?? "/", target);
    const upstream = httpRequest(url, { method: req.method, headers: req.headers, agent: false }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    upstream.on("error", (e) => {
      if (!res.headersSent) res.writeHead(502, { "content-type": "text/plain" });
      res.end(`proxy: ${name} failed: ${e.message}`);
    });
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    backends,
    served,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
