/**
 * The real gateway over real HTTP on loopback, for the end-to-end suite: the
 * createGatewayRuntime + createHttpApp served by @hono/node-server on port 0, with the
 * embedded default hosts (or a variant of their config), an in-memory store unless a Redis
 * URL is given, a temporary data dir, and a clock the test can move forward.
 *
 * The server listens before the runtime exists, because the public origin (PUBLIC_ORIGIN,
 * §3.2 @target-uri) must name the port the kernel chose.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import type { HostConfig } from "../../../src/booking/api.js";
import {
  EMBEDDED_DEFAULT_CONFIG,
  embeddedDefaultHosts,
  parseHostsConfig,
} from "../../../src/booking/hosts/index.js";
import { createHttpApp } from "../../../src/gateway/app/app.js";
import type { Logger } from "../../../src/protocol/logger.js";
import { createGatewayRuntime } from "../../../src/gateway/runtime/runtime.js";
import type { GatewayRuntime, GatewayRuntimeOptions } from "../../../src/gateway/runtime/runtime.js";

/** Wall time plus an offset the test moves, shared by the gateway and its agents. */
export class TestClock {
  offsetMs = 0;
  readonly now = (): number => Date.now() + this.offsetMs;
  advance(ms: number): void {
    this.offsetMs += ms;
  }
}

export interface LogLine {
  readonly level: "info" | "warn" | "error";
  readonly message: string;
  readonly fields?: Readonly<Record<string, unknown>>;
}

export interface E2eGateway {
  readonly origin: string;
  readonly runtime: GatewayRuntime;
  readonly clock: TestClock;
  readonly dataDir: string;
  /** Everything the gateway logged, for diagnosing a failure (errors are also printed). */
  readonly logs: LogLine[];
  /** Bearer header for the operator API. */
  readonly operatorAuth: { authorization: string };
  close(): Promise<void>;
}

export interface StartOptions {
  /** A hosts config (the file format, as EMBEDDED_DEFAULT_CONFIG); the embedded default when absent. */
  readonly config?: unknown;
  readonly redisUrl?: string;
  readonly redisKeyPrefix?: string;
  readonly runtime?: Partial<GatewayRuntimeOptions>;
}

/** A deep copy of the embedded default config, to edit for one test's host variant. */
export function defaultConfig(): {
  hosts: Array<Record<string, unknown> & { id: string; policies?: Record<string, unknown> }>;
} {
  return structuredClone(EMBEDDED_DEFAULT_CONFIG) as never;
}

export async function startGateway(opts: StartOptions = {}): Promise<E2eGateway> {
  let hosts: HostConfig[];
  if (opts.config === undefined) hosts = embeddedDefaultHosts();
  else {
    const parsed = parseHostsConfig(opts.config);
    if (!parsed.ok) throw new Error(`test config: ${parsed.error.message}`);
    hosts = parsed.value;
  }
  // Filled in once the runtime exists; until then the socket answers 503.
  const route: { handler?: (req: Request, env?: unknown) => Response | Promise<Response> } = {};
  const server = serve({
    fetch: (req: Request, env: unknown) =>
      route.handler === undefined ? new Response("starting", { status: 503 }) : route.handler(req, env),
    port: 0,
    hostname: "127.0.0.1",
  });
  await new Promise<void>((resolve) =>
    server.listening ? resolve() : server.once("listening", () => resolve()),
  );
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const dataDir = mkdtempSync(join(tmpdir(), "e2e-gateway-"));
  const clock = new TestClock();
  const logs: LogLine[] = [];
  const logger: Logger = {
    info: (message, fields) => void logs.push({ level: "info", message, ...(fields && { fields }) }),
    warn: (message, fields) => void logs.push({ level: "warn", message, ...(fields && { fields }) }),
    error: (message, fields) => {
      logs.push({ level: "error", message, ...(fields && { fields }) });
      process.stderr.write(`[gateway error] ${message} ${JSON.stringify(fields ?? {})}\n`);
    },
  };
  let runtime: GatewayRuntime;
  try {
    runtime = await createGatewayRuntime({
      hosts,
      publicOrigin: origin,
      dataDir,
      clock,
      logger,
      // The tests' upstream fakes listen on loopback: the operator's explicit allowance
      // (UPSTREAM_ALLOW_PRIVATE=1); a test of the address policy itself overrides it.
      upstreamPolicy: { allowPrivate: true },
      ...(opts.redisUrl !== undefined && { redisUrl: opts.redisUrl }),
      ...(opts.redisKeyPrefix !== undefined && { redisKeyPrefix: opts.redisKeyPrefix }),
      ...opts.runtime,
    });
  } catch (e) {
    server.close();
    rmSync(dataDir, { recursive: true, force: true });
    throw e;
  }
  const app = createHttpApp(runtime);
  route.handler = (req, env) => app.fetch(req, env);
  return {
    origin,
    runtime,
    clock,
    dataDir,
    logs,
    operatorAuth: { authorization: `Bearer ${runtime.operatorToken}` },
    close: async () => {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Keep-alive sockets would hold close() open until they time out.
        (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
      });
      await runtime.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
