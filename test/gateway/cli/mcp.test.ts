/**
 * `booking-gateway mcp` through runCli, in process: argument and environment errors, and a
 * start on stand-in stdio streams that ends, stores closed, when stdin ends.
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCli } from "../../../src/gateway/cli/cli.js";
import type { RunningMcp } from "../../../src/gateway/cli/cli.js";
import { CONFORMANCE_HOST_ID, conformanceHost } from "../../../src/gateway/osbp-conformance/index.js";
import { FileIdempotencyStore } from "../../../src/edges/osbp/idempotency/file.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "gw-mcp-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function io(env: Record<string, string> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  let frames = "";
  stdout.on("data", (b: Buffer) => (frames += b.toString()));
  return {
    io: {
      env: {
        OSBP_AUDIT_LOG_PATH: join(dir, "audit.jsonl"),
        OSBP_IDEMPOTENCY_PATH: join(dir, "idempotency.json"),
        ...env,
      },
      out: (l: string) => out.push(l),
      err: (l: string) => err.push(l),
      cwd: dir,
      stdin,
      stdout,
    },
    out,
    err,
    stdin,
    frames: () => frames,
  };
}

describe("booking-gateway mcp: usage errors", () => {
  it("requires --host, with the usage on stderr and nothing on stdout", async () => {
    const t = io();
    expect(await runCli(["mcp"], t.io)).toBe(2);
    expect(t.err.join("\n")).toMatch(/--host ID is required/);
    expect(t.err.join("\n")).toMatch(/mcp --host ID \[--config FILE\]/);
    expect(t.out).toEqual([]);
  });

  it("refuses an unknown option", async () => {
    const t = io();
    expect(await runCli(["mcp", "--host", CONFORMANCE_HOST_ID, "--port", "1"], t.io)).toBe(2);
    expect(t.err.join("\n")).toMatch(/--port/);
  });

  it("exits 2 for an unknown --host, listing the hosts it knows", async () => {
    const t = io();
    expect(await runCli(["mcp", "--host", "no-such-host"], t.io)).toBe(2);
    const text = t.err.join("\n");
    expect(text).toMatch(/no host "no-such-host"/);
    expect(text).toContain("maple-street-auto");
    expect(text).toContain(CONFORMANCE_HOST_ID);
  });

  it("exits 2 naming the field of a bad --config, as serve does", async () => {
    const t = io();
    await writeFile(join(dir, "bad.json"), JSON.stringify({ hosts: [{ id: "x" }] }));
    expect(await runCli(["mcp", "--host", "x", "--config", "bad.json"], t.io)).toBe(2);
    expect(t.err.join("\n")).toMatch(/bad\.json: \/hosts\/0/);
  });

  it("exits 2 naming the variable of a bad REDIS_URL", async () => {
    const t = io({ REDIS_URL: "http://nope" });
    expect(await runCli(["mcp", "--host", CONFORMANCE_HOST_ID], t.io)).toBe(2);
    expect(t.err.join("\n")).toMatch(/REDIS_URL must be a redis:\/\//);
  });

  it("lists the mcp command and its environment in its help", async () => {
    const t = io();
    expect(await runCli(["mcp", "--help"], t.io)).toBe(0);
    const text = t.out.join("\n");
    for (const name of [
      "mcp --host ID",
      "OSBP_AUDIT_LOG_PATH",
      "OSBP_IDEMPOTENCY_PATH",
      "SYNTHETIC_MESSAGE_LOG",
    ]) {
      expect(text).toContain(name);
    }
  });
});

describe("booking-gateway mcp: running", () => {
  it("serves on the given streams, logs to stderr only, and closes its stores when stdin ends", async () => {
    const t = io();
    const result = await runCli(["mcp", "--host", CONFORMANCE_HOST_ID], t.io);
    expect(typeof result).toBe("object");
    const running = result as RunningMcp;
    expect(t.out).toEqual([]);
    expect(t.err.join("\n")).toMatch(new RegExp(`serving OSBP 0\\.1\\.0 for host "${CONFORMANCE_HOST_ID}"`));
    expect(t.err.join("\n")).toContain(join(dir, "audit.jsonl"));

    t.stdin.write(
      `${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "osbp_service_describe", arguments: { service_id: conformanceHost.services.fixed_usd.service_id } } })}\n`,
    );
    t.stdin.end();
    await running.done;

    const frame = JSON.parse(t.frames().trim()) as {
      id: number;
      result: { structuredContent: { ok: boolean } };
    };
    expect(frame).toMatchObject({ id: 1, result: { structuredContent: { ok: true } } });
    expect((await readFile(join(dir, "audit.jsonl"), "utf8")).trim().split("\n")).toHaveLength(1);
    // The idempotency file's lock was released: another process could take over now.
    const again = await FileIdempotencyStore.open(join(dir, "idempotency.json"));
    await again.close();
  });

  it("resolves relative paths against the working directory", async () => {
    const t = io({ OSBP_AUDIT_LOG_PATH: "logs/a.jsonl", OSBP_IDEMPOTENCY_PATH: "state/i.json" });
    const running = (await runCli(["mcp", "--host", CONFORMANCE_HOST_ID], t.io)) as RunningMcp;
    await running.close();
    expect(t.err.join("\n")).toContain(join(dir, "logs/a.jsonl"));
    expect(t.err.join("\n")).toContain(join(dir, "state/i.json"));
  });
});
