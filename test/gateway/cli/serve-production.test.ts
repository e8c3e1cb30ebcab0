/**
 * What `serve` gives a deployment: /readyz that follows the store, /healthz that
 * stays liveness, a port in use that names PORT, a banner that says what to try next, and
 * LOG_FORMAT=json turning the banner into log records.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import type { AddressInfo, Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCli } from "../../../src/gateway/cli/cli.js";
import type { RunningServer } from "../../../src/gateway/cli/cli.js";
import { jsonLinesLogger } from "../../../src/gateway/runtime/support.js";
import { startOwnRedis, uniquePrefix } from "../../support/redis.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "gw-serve-prod-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function serve(env: Record<string, string> = {}, args: string[] = []) {
  const out: string[] = [];
  const err: string[] = [];
  const result = await runCli(["serve", ...args], {
    env: { GATEWAY_DATA_DIR: join(dir, "data"), PORT: "0", ...env },
    out: (l) => out.push(l),
    err: (l) => err.push(l),
    cwd: dir,
  });
  return { result, out, err };
}

/**
 * A step that must end within 20 s, or fail naming it: a start or a close that never ends would
 * otherwise surface only as the test's own timeout, with nothing said about where it stood.
 */
async function within<T>(step: string, work: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      work,
      new Promise<never>((_, fail) => {
        timer = setTimeout(() => fail(new Error(`${step} did not end within 20 s`)), 20_000);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

describe("serve for production", { timeout: 60_000 }, () => {
  it("answers /readyz 200 when the store answers, and 503 once Redis stops; /healthz stays 200", async () => {
    const redis = await startOwnRedis();
    let server: RunningServer | undefined;
    try {
      const started = await within(
        "serve's start on Redis",
        serve({ REDIS_URL: redis.url, REDIS_KEY_PREFIX: uniquePrefix("readyz") }),
      );
      server = started.result as RunningServer;
      const ready = await fetch(`${server.url}/readyz`);
      expect(ready.status).toBe(200);
      expect(await ready.json()).toEqual({ ready: true });

      await redis.kill!();
      const gone = await fetch(`${server.url}/readyz`);
      expect(gone.status).toBe(503);
      expect(await gone.json()).toMatchObject({ ready: false });
      expect((await fetch(`${server.url}/healthz`)).status).toBe(200);

      await redis.start!();
      await expect
        .poll(async () => (await fetch(`${server!.url}/readyz`)).status, { timeout: 15_000, interval: 200 })
        .toBe(200);
    } finally {
      await within("serve's close after Redis came back", server?.close() ?? Promise.resolve());
      await redis.stop();
    }
  });

  it("says which variable to change when the port is in use", async () => {
    const busy: Server = createServer();
    await new Promise<void>((done) => busy.listen(0, "127.0.0.1", done));
    const port = (busy.address() as AddressInfo).port;
    try {
      const { result, err } = await serve({ PORT: String(port) });
      expect(result).toBe(1);
      expect(err.join("\n")).toMatch(
        new RegExp(
          `port ${port} is in use on 127\\.0\\.0\\.1: set PORT to another port .*or stop the other process`,
        ),
      );
    } finally {
      await new Promise<void>((done) => busy.close(() => done()));
    }
  });

  it("ends the banner with what to try next: the console, the SchCP demo, the MCP command", async () => {
    const { result, out } = await serve();
    const server = result as RunningServer;
    try {
      const text = out.join("\n");
      const o = server.publicOrigin.replace(/[.]/g, "\\.");
      expect(text).toMatch(/try next:/);
      expect(text).toMatch(new RegExp(`open ${o}/ in a browser`));
      expect(text).toMatch(new RegExp(`GATEWAY_URL=${o} HOST_ID=maple-street-auto npm run demo:schcp`));
      expect(text).toMatch(/an MCP client \(docs\/mcp.md "MCP client"\): add this server to its mcpServers/);
      expect(text).toContain(
        `"args":["${join(import.meta.dirname, "../../../bin/booking-gateway.js")}","mcp","--host","maple-street-auto"]`,
      );
      expect(text).toContain(`"GATEWAY_DATA_DIR":"${join(dir, "data")}"`);
      expect(out.at(-1)).toMatch(/readiness at .*\/readyz/);
    } finally {
      await server.close();
    }
  });

  it("with LOG_FORMAT=json prints the banner as one JSON log record a line", async () => {
    const { result, out } = await serve({ LOG_FORMAT: "json" });
    const server = result as RunningServer;
    try {
      expect(out.length).toBeGreaterThan(5);
      for (const line of out) {
        const record = JSON.parse(line) as Record<string, unknown>;
        expect(record["level"]).toBe("info");
        expect(typeof record["msg"]).toBe("string");
        expect(Date.parse(record["time"] as string)).not.toBeNaN();
      }
      expect(out.some((l) => /serving 9 host\(s\) on http:\/\/127\.0\.0\.1:\d+ /.test(l))).toBe(true);
    } finally {
      await server.close();
    }
    const bad = await serve({ LOG_FORMAT: "yaml" });
    expect(bad.result).toBe(2);
    expect(bad.err.join("\n")).toMatch(/LOG_FORMAT must be text or json/);
  });

  it("reads OPERATOR_TOKEN from OPERATOR_TOKEN_FILE (a Docker secret), and refuses both at once", async () => {
    const token = "op-from-a-secret-file-0123456789";
    await writeFile(join(dir, "operator_token"), `${token}\n`);
    const { result, out } = await serve({ OPERATOR_TOKEN_FILE: "operator_token" });
    const server = result as RunningServer;
    try {
      expect(out.join("\n")).toMatch(/operator credential: from OPERATOR_TOKEN/);
      const r = await fetch(`${server.url}/operator/v0/hosts`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(r.status).toBe(200);
    } finally {
      await server.close();
    }
    const both = await serve({ OPERATOR_TOKEN_FILE: "operator_token", OPERATOR_TOKEN: token });
    expect(both.result).toBe(2);
    expect(both.err.join("\n")).toMatch(/set OPERATOR_TOKEN or OPERATOR_TOKEN_FILE, not both/);
    const missing = await serve({ TOKEN_KEYS_FILE: "nope" });
    expect(missing.result).toBe(2);
    expect(missing.err.join("\n")).toMatch(/TOKEN_KEYS_FILE: cannot read nope \(ENOENT\)/);
  });

  it("logs one JSON object a line: time, level, msg, then the fields (an Error as its message)", () => {
    const lines: string[] = [];
    const log = jsonLinesLogger((l) => lines.push(l));
    log.warn("store slow", { ms: 120, msg: "not the message", error: new Error("boom") });
    expect(lines).toHaveLength(1);
    const record = JSON.parse(lines[0]!) as Record<string, unknown>;
    expect(Object.keys(record).slice(0, 3)).toEqual(["time", "level", "msg"]);
    expect(record).toEqual({
      time: record["time"],
      level: "warn",
      msg: "store slow",
      ms: 120,
      "field.msg": "not the message",
      error: "boom",
    });
    expect(Date.parse(record["time"] as string)).not.toBeNaN();
  });
});
