/**
 * vitest globalSetup of the lanes that start the gateway's CLI as a child process (`processes`,
 * `cluster`; vitest.config.ts): `npm run build` (docs/production.md, step 1) once per run, in
 * vitest's own process. The children then run `node dist/gateway/cli/main.js`, the file
 * bin/booking-gateway.js runs once built, instead of loading every module of src/ through
 * tsx's loader, which cost each child more CPU than its whole start from dist/ does.
 *
 * The build starts with the run and goes on beside the first tests (test/support/sequencer.ts
 * starts files that need no build first); a test waits for it through a loopback URL that
 * answers once it is done (test/support/gateway-cli.ts). The run does not end before the build
 * does: dist/ is the checkout's, and bin/booking-gateway.js runs whatever is there, so it must
 * not be left half written. Both projects share one build: the state lives on globalThis of
 * vitest's process.
 */
import { spawn } from "node:child_process";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { TestProject } from "vitest/node";

/** What a worker learns of the build (test/support/gateway-cli.ts). */
export interface GatewayBuild {
  /** `npm run build` exited 0. */
  readonly ok: boolean;
  /** Its exit code, and what it printed (for the failure message). */
  readonly code: number | null;
  readonly output: string;
}

declare module "vitest" {
  export interface ProvidedContext {
    /** The loopback URL that answers the build once it is done. */
    gatewayBuildUrl?: string;
  }
}

interface Shared {
  server: Server;
  url: string;
  users: number;
  build: Promise<GatewayBuild>;
}

const KEY = Symbol.for("booking-gateway.test.gateway-build");
const holder = globalThis as { [KEY]?: Promise<Shared> };

function runBuild(root: string): Promise<GatewayBuild> {
  return new Promise((resolve) => {
    const child = spawn("npm", ["run", "build"], { cwd: root, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (c: Buffer) => (output += c.toString()));
    child.stderr.on("data", (c: Buffer) => (output += c.toString()));
    child.once("error", (e) => resolve({ ok: false, code: null, output: `${output}\n${e.message}` }));
    child.once("close", (code) => resolve({ ok: code === 0, code, output }));
  });
}

async function start(root: string): Promise<Shared> {
  const shared = { users: 0, build: runBuild(root) } as Shared;
  shared.server = createServer((_req, res) => {
    void shared.build.then((build) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(build));
    });
  });
  // A build takes about half a minute of one core: the request waits for it.
  shared.server.headersTimeout = 0;
  shared.server.requestTimeout = 0;
  await new Promise<void>((done) => shared.server.listen(0, "127.0.0.1", done));
  shared.url = `http://127.0.0.1:${(shared.server.address() as AddressInfo).port}/`;
  return shared;
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const shared = await (holder[KEY] ??= start(project.config.root));
  shared.users += 1;
  project.provide("gatewayBuildUrl", shared.url);
  return async () => {
    shared.users -= 1;
    if (shared.users > 0) return;
    delete holder[KEY];
    await shared.build;
    shared.server.closeAllConnections();
    await new Promise<void>((done) => shared.server.close(() => done()));
  };
}
