/**
 * How a test starts the gateway's CLI (`booking-gateway serve`, `mcp`…) as a child process:
 * `node dist/gateway/cli/main.js`, built once for the run by `npm run build`
 * (test/support/gateway-build.ts, the globalSetup of the lanes that start processes). That is
 * the file bin/booking-gateway.js runs in a built checkout (docs/production.md, "MCP client").
 * `npm start` and an unbuilt checkout run the TypeScript through tsx instead: TSX_CLI is that
 * command, for the tests that check that path.
 */
import { createRequire } from "node:module";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { beforeAll, inject } from "vitest";
import type { GatewayBuild } from "./gateway-build.js";

const REPO = resolve(import.meta.dirname, "../..");

/** The built CLI (absolute, so the child finds it whatever its working directory). */
export const DIST_MAIN = join(REPO, "dist/gateway/cli/main.js");

/** `npm start`'s way: the TypeScript entry through tsx (absolute, as DIST_MAIN). */
export const TSX_CLI: readonly string[] = [
  "--import",
  pathToFileURL(createRequire(join(REPO, "package.json")).resolve("tsx")).href,
  join(REPO, "src/gateway/cli/main.ts"),
];

let built: Promise<GatewayBuild> | undefined;

/** Resolves once dist/ is built for this run; throws if the build failed. */
export async function gatewayBuilt(): Promise<void> {
  built ??= (async () => {
    const url = inject("gatewayBuildUrl");
    if (url === undefined) throw new Error("no build: run this file in the processes or cluster project");
    return (await fetch(url)).json() as Promise<GatewayBuild>;
  })();
  const build = await built;
  if (!build.ok) throw new Error(`npm run build exited ${build.code}:\n${build.output}`);
}

// A file that starts the CLI waits for the build before its own hooks, with a timeout of its
// own: a build takes half a minute of a core, more on a loaded machine.
beforeAll(gatewayBuilt, 600_000);

/** The node arguments that run the built CLI: `[...await gatewayCli(), "serve", …]`. */
export async function gatewayCli(): Promise<string[]> {
  await gatewayBuilt();
  return [DIST_MAIN];
}
