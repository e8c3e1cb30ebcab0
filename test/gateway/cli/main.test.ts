/**
 * The real process: `booking-gateway serve` started as Node would run it, stopped by a signal.
 * SIGTERM goes to the process `npm start` runs (the TypeScript through tsx, docs/cli.md "npm
 * scripts"), SIGINT to the built CLI that bin/booking-gateway.js runs (test/support/gateway-cli.ts).
 */
import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { gatewayCli, TSX_CLI } from "../../support/gateway-cli.js";

const dirs: string[] = [];
async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "gw-main-"));
  dirs.push(dir);
  return dir;
}
afterAll(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

function startProcess(cli: readonly string[], env: Record<string, string>) {
  const { REDIS_URL: _ignored, ...inherited } = process.env;
  const child = spawn(process.execPath, [...cli, "serve"], {
    cwd: join(import.meta.dirname, "../../.."),
    env: { ...inherited, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (b: Buffer) => (stdout += b.toString()));
  child.stderr.on("data", (b: Buffer) => (stderr += b.toString()));
  const exited = new Promise<number | null>((done) => child.on("exit", (code) => done(code)));
  const ready = new Promise<string>((done, fail) => {
    const poll = setInterval(() => {
      const url = /serving \d+ host\(s\) on (http:\/\/127\.0\.0\.1:\d+)/.exec(stdout)?.[1];
      if (url !== undefined && /operator credential/.test(stdout)) {
        clearInterval(poll);
        done(url);
      }
    }, 50);
    void exited.then((code) => {
      clearInterval(poll);
      fail(new Error(`exited ${code} before serving:\n${stdout}\n${stderr}`));
    });
  });
  return { child, ready, exited, output: () => ({ stdout, stderr }) };
}

// Concurrent: each test starts its own Node process (most of the time is loading the modules,
// slower still while the rest of the suite runs beside it).
describe.concurrent("booking-gateway process", { timeout: 90_000 }, () => {
  it.each([
    ["SIGTERM", "npm start (tsx)"],
    ["SIGINT", "the built CLI"],
  ] as const)("serves, then shuts down gracefully on %s with exit code 0 (%s)", async (signal, how) => {
    const cli = how === "the built CLI" ? await gatewayCli() : TSX_CLI;
    const p = startProcess(cli, { PORT: "0", GATEWAY_DATA_DIR: await tempDir() });
    const url = await p.ready;
    const res = await fetch(`${url}/.well-known/scheduling.json`);
    expect(res.status).toBe(200);
    p.child.kill(signal);
    expect(await p.exited).toBe(0);
    expect(p.output().stderr).toMatch(new RegExp(`${signal}, shutting down`));
  });

  it("exits 2 with the field named for a bad config file", async () => {
    const { writeFile } = await import("node:fs/promises");
    const dir = await tempDir();
    await writeFile(join(dir, "bad.json"), JSON.stringify({ hosts: [{ id: "x" }] }));
    const child = spawn(
      process.execPath,
      [...(await gatewayCli()), "serve", "--config", join(dir, "bad.json")],
      {
        cwd: join(import.meta.dirname, "../../.."),
        env: { ...process.env, PORT: "0", GATEWAY_DATA_DIR: dir, REDIS_URL: "" },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let stderr = "";
    child.stderr.on("data", (b: Buffer) => (stderr += b.toString()));
    const code = await new Promise<number | null>((done) => child.on("exit", done));
    expect(code).toBe(2);
    expect(stderr).toMatch(/bad\.json: \/hosts\/0/);
  });
});
