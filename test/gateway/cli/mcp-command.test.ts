/**
 * The MCP command serve's start banner prints (src/gateway/cli/mcp-command.ts): absolute paths
 * and serve's own data dir and Redis settings, so an MCP client that starts it from anywhere
 * runs on serve's state; no secret in clear. In process: serve with a relative data dir, then
 * the printed command run as the client would run it, from another working directory, on
 * stand-in stdio streams.
 */
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCli } from "../../../src/gateway/cli/cli.js";
import type { RunningMcp, RunningServer } from "../../../src/gateway/cli/cli.js";
import { mcpBannerLines, mcpCommandFor, shellWord } from "../../../src/gateway/cli/mcp-command.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "gw-mcp-command-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

interface Entry {
  command: string;
  args: string[];
  env: Record<string, string>;
}

/** The mcpServers entry the banner prints. */
function entryOf(banner: string): Entry {
  const line = banner.split("\n").find((l) => l.includes('{"booking-gateway":'));
  if (line === undefined) throw new Error(`no mcpServers entry in:\n${banner}`);
  const json = line.slice(line.indexOf("{"));
  return (JSON.parse(json) as { "booking-gateway": Entry })["booking-gateway"];
}

async function filesUnder(root: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const name of await readdir(root, { recursive: true, withFileTypes: true })) {
    if (name.isFile()) {
      const path = join(name.parentPath, name.name);
      out[path.slice(root.length)] = await readFile(path, "utf8");
    }
  }
  return out;
}

describe("serve's banner gives an MCP client a command that runs on serve's state", () => {
  it("names an absolute data dir for a relative one, and the command reaches the same data dir", async () => {
    const out: string[] = [];
    const started = await runCli(["serve"], {
      env: { PORT: "0", GATEWAY_DATA_DIR: "relative/data" },
      out: (l) => out.push(l),
      err: () => undefined,
      cwd: dir,
    });
    if (typeof started === "number") throw new Error(`serve exited ${started}`);
    const server = started as RunningServer;
    const dataDir = join(dir, "relative/data");
    const banner = out.join("\n");
    const entry = entryOf(banner);
    expect(entry.command).toBe(process.execPath);
    expect(entry.args[0]).toMatch(/^\/.*\/bin\/booking-gateway\.js$/);
    expect(existsSync(entry.args[0]!)).toBe(true);
    expect(entry.args.slice(1)).toEqual(["mcp", "--host", "maple-street-auto"]);
    expect(entry.env).toEqual({
      GATEWAY_DATA_DIR: dataDir,
      OSBP_AUDIT_LOG_PATH: join(dataDir, "osbp/audit/events.jsonl"),
    });
    expect(banner).toContain(`in a shell: GATEWAY_DATA_DIR=${dataDir} `);
    expect(banner).toMatch(/without REDIS_URL its holds and bookings are its own/);

    // What serve keeps in its data dir: host keys, the operator credential.
    const before = await filesUnder(dataDir);
    expect(Object.keys(before)).toContain("/keys/maple-street-auto.json");
    expect(Object.keys(before)).toContain("/operator-token");

    // The client starts the command wherever it likes: here, another directory.
    const elsewhere = join(dir, "client-cwd");
    await mkdir(elsewhere);
    const toServer = new PassThrough();
    const fromServer = new PassThrough();
    let frames = "";
    fromServer.on("data", (b: Buffer) => (frames += b.toString()));
    const err: string[] = [];
    const mcp = await runCli(entry.args.slice(1), {
      env: entry.env,
      out: () => undefined,
      err: (l) => err.push(l),
      cwd: elsewhere,
      stdin: toServer,
      stdout: fromServer,
    });
    if (typeof mcp === "number") throw new Error(`mcp exited ${mcp}: ${err.join("\n")}`);
    try {
      toServer.write(
        `${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "osbp_service_describe", arguments: { service_id: "oil-change" } } })}\n`,
      );
      toServer.end();
      await (mcp as RunningMcp).done;
    } finally {
      await server.close();
    }
    expect(JSON.parse(frames.trim())).toMatchObject({ id: 1, result: { structuredContent: { ok: true } } });

    // Nothing was made where the client started it; everything went to serve's data dir.
    expect(await readdir(elsewhere)).toEqual([]);
    expect(err.join("\n")).toContain(`idempotency: ${join(dataDir, "osbp/idempotency.json")}`);
    const after = await filesUnder(dataDir);
    // The same host keys and operator credential, none made anew.
    for (const [path, text] of Object.entries(before)) expect(after[path], path).toBe(text);
    expect(Object.keys(after).filter((p) => p.startsWith("/keys/"))).toEqual(
      Object.keys(before).filter((p) => p.startsWith("/keys/")),
    );
    expect(after["/osbp/audit/events.jsonl"]?.trim().split("\n")).toHaveLength(1);
  });
});

describe("mcpCommandFor", () => {
  const base = {
    hostId: "maple-street",
    configPath: "/etc/gateway/hosts.jsonc",
    cwd: "/srv/gw",
    dataDir: "/srv/gw/.gateway",
    node: "/usr/local/bin/node",
    bin: "/opt/gw/bin/booking-gateway.js",
  };

  it("passes serve's Redis on, and a password never in clear", () => {
    const c = mcpCommandFor({
      ...base,
      env: {
        REDIS_URL: "redis://app:s3cret-pass@redis.internal:6379/0",
        REDIS_KEY_PREFIX: "gw:",
        PUBLIC_ORIGIN: "https://gw.example",
        OSBP_IDEMPOTENCY_PATH: "state/idem.json",
      },
    });
    expect(c.args).toEqual([base.bin, "mcp", "--host", "maple-street", "--config", base.configPath]);
    expect(c.env).toEqual({
      GATEWAY_DATA_DIR: "/srv/gw/.gateway",
      OSBP_AUDIT_LOG_PATH: "/srv/gw/.gateway/osbp/audit/events.jsonl",
      OSBP_IDEMPOTENCY_PATH: "/srv/gw/state/idem.json",
      REDIS_URL: "redis://app:***@redis.internal:6379/0",
      REDIS_KEY_PREFIX: "gw:",
      PUBLIC_ORIGIN: "https://gw.example",
    });
    expect(c.secrets).toEqual(["REDIS_URL"]);
    const lines = mcpBannerLines(c, { redis: true }).join("\n");
    expect(lines).not.toContain("s3cret-pass");
    expect(lines).toMatch(
      /REDIS_URL is shown without its password \(\*\*\*\), a secret this banner does not print: .*REDIS_URL_FILE/,
    );
    expect(lines).toMatch(/the same holds, bookings and synthetic platform as this serve/);
  });

  it("passes REDIS_URL_FILE (absolute) instead of the URL it holds, and the cluster's nodes", () => {
    const c = mcpCommandFor({
      ...base,
      env: {
        REDIS_URL_FILE: "secrets/redis-url",
        REDIS_URL: "redis+cluster://:pw@a:1,b:2",
        REDIS_CLUSTER_NODES: "a:1,b:2",
      },
    });
    expect(c.env["REDIS_URL_FILE"]).toBe("/srv/gw/secrets/redis-url");
    expect(c.env["REDIS_URL"]).toBeUndefined();
    expect(c.env["REDIS_CLUSTER_NODES"]).toBe("a:1,b:2");
    expect(c.secrets).toEqual([]);
  });

  it("mcp reads REDIS_URL_FILE as serve does", async () => {
    const err: string[] = [];
    const code = await runCli(["mcp", "--host", "maple-street-auto"], {
      env: { REDIS_URL_FILE: "secrets/none" },
      out: () => undefined,
      err: (l) => err.push(l),
      cwd: dir,
    });
    expect(code).toBe(2);
    expect(err.join("\n")).toContain("REDIS_URL_FILE: cannot read secrets/none (ENOENT)");
  });

  it("a URL without a password is passed as it is", () => {
    const c = mcpCommandFor({ ...base, env: { REDIS_URL: "redis://127.0.0.1:6379" } });
    expect(c.env["REDIS_URL"]).toBe("redis://127.0.0.1:6379");
    expect(c.secrets).toEqual([]);
  });

  it("quotes shell words only where the shell would split or expand them", () => {
    expect(shellWord("/srv/gw/.gateway")).toBe("/srv/gw/.gateway");
    expect(shellWord("/home/a b/data")).toBe("'/home/a b/data'");
    expect(shellWord("it's")).toBe(`'it'\\''s'`);
    expect(shellWord("$HOME")).toBe("'$HOME'");
  });
});
