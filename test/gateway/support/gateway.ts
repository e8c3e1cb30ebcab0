/**
 * A real gateway on loopback for integration tests: createGatewayRuntime + createHttpApp
 * served by @hono/node-server on port 0, with a settable clock, and a signing agent that
 * talks to it over real HTTP. The public origin is deliberately NOT the loopback address the
 * socket listens on, so every signature proves @target-uri comes from configuration (§3.2).
 */
import { serve } from "@hono/node-server";
import type { AddressInfo } from "node:net";
import type { HostConfig } from "../../../src/booking/api.js";
import { embeddedDefaultHosts } from "../../../src/booking/hosts/index.js";
import { createHttpApp } from "../../../src/gateway/app/app.js";
import type { Logger } from "../../../src/protocol/logger.js";
import { createGatewayRuntime } from "../../../src/gateway/runtime/runtime.js";
import type { GatewayRuntime, GatewayRuntimeOptions } from "../../../src/gateway/runtime/runtime.js";
import { jsonLinesLogger } from "../../../src/gateway/runtime/support.js";
import type { SigningKey } from "../../../src/protocol/schcp/mandate/index.js";
import { signedInit } from "./agent.js";

export const PUBLIC_ORIGIN = "https://gateway.test";
/** Tuesday 13 October 2026, 09:00 in Toronto. */
export const START_MS = Date.UTC(2026, 9, 13, 13, 0, 0);

/** Errors the gateway logs (a 500's cause) show up in the test output; the rest is dropped. */
const stderrLines = jsonLinesLogger((line) => process.stderr.write(`${line}\n`));
const errorsToStderr: Logger = {
  info: () => {},
  warn: () => {},
  error: (message, fields) => stderrLines.error(message, fields),
};

export class TestClock {
  constructor(private ms = START_MS) {}
  now(): number {
    return this.ms;
  }
  advance(ms: number): void {
    this.ms += ms;
  }
  get sec(): number {
    return Math.floor(this.ms / 1000);
  }
}

export interface TestGateway {
  readonly runtime: GatewayRuntime;
  readonly url: string;
  readonly clock: TestClock;
  close(): Promise<void>;
}

export async function startGateway(
  opts: Partial<GatewayRuntimeOptions> & {
    dataDir: string;
    clock?: TestClock;
    hosts?: readonly HostConfig[];
  },
): Promise<TestGateway> {
  const clock = opts.clock ?? new TestClock();
  const runtime = await createGatewayRuntime({
    publicOrigin: PUBLIC_ORIGIN,
    logger: errorsToStderr,
    workers: false,
    ...opts,
    hosts: opts.hosts ?? embeddedDefaultHosts(),
    clock,
  });
  const app = createHttpApp(runtime);
  const { server, port } = await new Promise<{ server: ReturnType<typeof serve>; port: number }>((done) => {
    const s = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, (info: AddressInfo) =>
      done({ server: s, port: info.port }),
    );
  });
  return {
    runtime,
    url: `http://127.0.0.1:${port}`,
    clock,
    close: async () => {
      await new Promise<void>((done) => server.close(() => done()));
      await runtime.close();
    },
  };
}

export interface AgentCall {
  readonly method: string;
  readonly path: string;
  readonly body?: unknown;
  readonly mandate?: string;
  readonly headers?: Record<string, string>;
  readonly created?: number;
  readonly nonce?: string;
}

export interface AgentResponse {
  readonly status: number;
  readonly headers: Headers;
  readonly json: unknown;
}

/** Signs for the public origin and sends to the loopback socket, as an agent behind DNS would. */
export async function agentFetch(
  gw: TestGateway,
  agent: SigningKey,
  call: AgentCall,
): Promise<AgentResponse> {
  const init = signedInit({
    method: call.method,
    path: call.path,
    body: call.body,
    ...(call.mandate !== undefined && { mandate: call.mandate }),
    agent,
    created: call.created ?? gw.clock.sec,
    ...(call.nonce !== undefined && { nonce: call.nonce }),
    signedOrigin: PUBLIC_ORIGIN,
    ...(call.headers !== undefined && { headers: call.headers }),
  });
  const res = await fetch(gw.url + call.path, init);
  const text = await res.text();
  return {
    status: res.status,
    headers: res.headers,
    json: text === "" ? undefined : (JSON.parse(text) as unknown),
  };
}
