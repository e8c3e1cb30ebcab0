/**
 * The upstream answer caps an operator sets in the environment (docs/connectors.md "Upstream answer
 * limits"; connectors/http/limits.ts) reach every connector: `serve` and `mcp` set them before
 * any host runs, and a value that is not a size is a start error naming the variable.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { readServeEnv } from "../../../src/gateway/cli/serve-env.js";
import { startServe } from "../../../src/gateway/cli/serve.js";
import { startMcp } from "../../../src/gateway/cli/mcp.js";
import {
  DEFAULT_UPSTREAM_LIMITS,
  setUpstreamLimits,
  upstreamLimits,
} from "../../../src/connectors/http/limits.js";

afterEach(() => setUpstreamLimits(DEFAULT_UPSTREAM_LIMITS));

describe("upstream answer caps from the environment", () => {
  it("every variable the README names is read", () => {
    const got = readServeEnv(
      {
        UPSTREAM_MAX_JSON_BYTES: "2048",
        UPSTREAM_MAX_CALDAV_BYTES: "4096",
        UPSTREAM_MAX_DISCOVERY_BYTES: "8192",
        ICS_MAX_FILE_BYTES: "16384",
        ICS_MAX_TOTAL_BYTES: "32768",
        UPSTREAM_MAX_JSON_TOKENS: "50000",
      },
      "/",
    );
    expect(got).toMatchObject({
      ok: true,
      value: {
        upstreamLimits: {
          jsonBytes: 2048,
          caldavBytes: 4096,
          discoveryBytes: 8192,
          icsFileBytes: 16384,
          icsTotalBytes: 32768,
          jsonTokens: 50000,
        },
      },
    });
    expect(readServeEnv({}, "/")).toMatchObject({ ok: true, value: { upstreamLimits: {} } });
  });

  it("a value that is not a size is a start error naming the variable", () => {
    const bad = readServeEnv({ UPSTREAM_MAX_JSON_BYTES: "8MB" }, "/");
    expect(bad.ok).toBe(false);
    expect(!bad.ok && bad.error).toMatch(/UPSTREAM_MAX_JSON_BYTES/);
    const tokens = readServeEnv({ UPSTREAM_MAX_JSON_TOKENS: "12" }, "/");
    expect(!tokens.ok && tokens.error).toMatch(/UPSTREAM_MAX_JSON_TOKENS must be a number from 1000/);
  });

  it("serve sets them before the hosts run; the rest keep their defaults", async () => {
    const dir = await mkdtemp(join(tmpdir(), "gw-limits-env-"));
    const lines: string[] = [];
    const running = await startServe(undefined, {
      env: { PORT: "0", GATEWAY_DATA_DIR: dir, UPSTREAM_MAX_CALDAV_BYTES: "65536" },
      out: (l) => lines.push(l),
      err: (l) => lines.push(l),
      cwd: dir,
    });
    try {
      expect(typeof running, lines.join("\n")).toBe("object");
      expect(upstreamLimits()).toEqual({ ...DEFAULT_UPSTREAM_LIMITS, caldavBytes: 65536 });
    } finally {
      if (typeof running === "object") await running.close();
      await rm(dir, { recursive: true, force: true });
    }
  }, 30_000);
  it("mcp sets them too, before its host runs", async () => {
    const dir = await mkdtemp(join(tmpdir(), "gw-limits-mcp-"));
    const lines: string[] = [];
    const stdin = new PassThrough();
    const running = await startMcp(
      { host: "maple-street-auto" },
      {
        env: { GATEWAY_DATA_DIR: dir, UPSTREAM_MAX_JSON_BYTES: "131072", ICS_MAX_FILE_BYTES: "32768" },
        out: (l) => lines.push(l),
        err: (l) => lines.push(l),
        cwd: dir,
        stdin,
        stdout: new PassThrough(),
      },
    );
    try {
      expect(typeof running, lines.join("\n")).toBe("object");
      expect(upstreamLimits()).toEqual({
        ...DEFAULT_UPSTREAM_LIMITS,
        jsonBytes: 131072,
        icsFileBytes: 32768,
      });
    } finally {
      if (typeof running === "object") await running.close();
      await rm(dir, { recursive: true, force: true });
    }
  }, 30_000);
});
