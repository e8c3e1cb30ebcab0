/**
 * The gateway from a packed install: `npm pack` of the repository, installed into an empty
 * project without dev dependencies, and started as a user would, `npx booking-gateway serve`.
 * It serves the embedded default (operator discovery lists its hosts) with no tsx, no TypeScript
 * and no test tooling present.
 */
import { execFile, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { createServer, type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { gatewayBuilt } from "../support/gateway-cli.js";

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL("../../", import.meta.url));

async function unusedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

let dir = "";
beforeAll(async () => {
  // The lane's build of dist/ (test/support/gateway-build.ts) runs beside the first tests.
  await gatewayBuilt();
  dir = await mkdtemp(join(tmpdir(), "gw-package-"));
}, 300_000);
afterAll(async () => {
  if (dir !== "") await rm(dir, { recursive: true, force: true });
});

describe("booking-gateway, packed and installed without dev dependencies", () => {
  it("`npx booking-gateway serve` serves the embedded default", { timeout: 240_000 }, async () => {
    // The lane's build has compiled dist/ from this source (beforeAll waits for it);
    // --ignore-scripts skips `prepack`, which would compile it again.
    const packs = join(dir, "packs");
    await mkdir(packs);
    await run("npm", ["pack", "--ignore-scripts", "--pack-destination", packs, "--silent"], { cwd: ROOT });
    const [tarball] = (await readdir(packs)).filter((f) => f.startsWith("booking-gateway-0"));
    expect(tarball).toMatch(/^booking-gateway-\d+\.\d+\.\d+\.tgz$/);
    const { stdout: listing } = await run("tar", ["tzf", join(packs, tarball!)]);
    const files = listing.trim().split("\n");
    expect(files).toContain("package/bin/booking-gateway.js");
    expect(files).toContain("package/dist/gateway/cli/main.js");
    expect(files).toContain("package/dist/holds/redis/lua/release-hold.lua");
    expect(files.some((f) => f.startsWith("package/src/") || f.startsWith("package/test/"))).toBe(false);

    const project = join(dir, "project");
    await mkdir(project);
    await writeFile(
      join(project, "package.json"),
      JSON.stringify({ name: "probe", version: "1.0.0", private: true }),
    );
    await run(
      "npm",
      [
        "install",
        join(packs, tarball!),
        "--omit=dev",
        "--prefer-offline",
        "--no-audit",
        "--no-fund",
        "--silent",
      ],
      { cwd: project },
    );
    // No dev dependency came along: what serve runs is the built code and its runtime dependencies.
    for (const dev of ["tsx", "typescript", "vitest", "eslint"])
      expect(existsSync(join(project, "node_modules", dev)), dev).toBe(false);

    // The embedding entry (docs/express.md) resolves from the installed package by its name.
    const { stdout: exported } = await run(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        'const m = await import("booking-gateway/express"); console.log(Object.keys(m).sort().join(","))',
      ],
      { cwd: project },
    );
    expect(exported.trim()).toBe("createGatewayRuntime,gatewayRouter,loadHostsConfigFile");

    const port = await unusedPort();
    const dataDir = join(dir, "data");
    const child = spawn("npx", ["--no-install", "booking-gateway", "serve"], {
      cwd: project,
      env: { ...process.env, PORT: String(port), GATEWAY_DATA_DIR: dataDir, REDIS_URL: "" },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    let out = "";
    child.stdout.on("data", (c: Buffer) => (out += c.toString()));
    child.stderr.on("data", (c: Buffer) => (out += c.toString()));
    try {
      const origin = `http://127.0.0.1:${port}`;
      let doc: { hosts?: Array<{ id: string }> } | undefined;
      for (let i = 0; i < 240 && doc === undefined && child.exitCode === null; i++) {
        try {
          const res = await fetch(`${origin}/.well-known/scheduling.json`);
          if (res.ok) doc = (await res.json()) as typeof doc;
        } catch {
          await new Promise((resolve) => setTimeout(resolve, 250));
        }
      }
      expect(doc, out).toBeDefined();
      expect(doc?.hosts?.map((h) => h.id)).toContain("maple-street-auto");
      expect(out).toContain(`serving 9 host(s) on ${origin}`);
      const ready = await fetch(`${origin}/readyz`);
      expect(ready.status, out).toBe(200);
    } finally {
      if (child.pid !== undefined && child.exitCode === null) process.kill(-child.pid, "SIGTERM");
      await new Promise<void>((resolve) =>
        child.exitCode !== null ? resolve() : child.once("exit", () => resolve()),
      );
    }
  });
});
