/**
 * `booking-gateway mcp` as a real process over stdio (OSBP "Transport", "Naming", "Result
 * Envelope", "Audit"), driven by the official MCP client: the tool list, schema refusals,
 * unknown tools, a read against the conformance host, one audit line per call, and the
 * process ending when its client goes away.
 */
import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CONFORMANCE_HOST_ID, conformanceHost } from "../../../../src/gateway/osbp-conformance/index.js";
import {
  MCP_TOOL_NAMES,
  TOOL_INPUT_SCHEMAS,
  TOOL_NAMES,
  type Problem,
} from "../../../../src/protocol/osbp/index.js";
import { gatewayCli } from "../../../support/gateway-cli.js";
import { startMcpServer, type McpSession } from "../../../support/mcp.js";

const SPAWN_MS = 60_000;
const REPO = resolve(import.meta.dirname, "../../../..");
const DESCRIBE = { service_id: conformanceHost.services.fixed_usd.service_id };

let session: McpSession;
/** audit_event_id of every envelope this file received, in order. */
const auditIds: string[] = [];

/** The envelope with both variants' members optional, so a test can look without narrowing. */
interface LooseEnvelope {
  ok: boolean;
  value?: unknown;
  problem?: Problem;
  audit_event_id: string;
}

async function call(tool: string, args: unknown) {
  const r = await session.call(tool, args);
  const envelope = r.envelope as LooseEnvelope;
  auditIds.push(envelope.audit_event_id);
  return { ...r, envelope };
}

beforeAll(async () => {
  session = await startMcpServer({ host: CONFORMANCE_HOST_ID });
}, SPAWN_MS);

afterAll(async () => {
  await session?.close();
});

describe("booking-gateway mcp over stdio", { timeout: SPAWN_MS }, () => {
  it("lists exactly the eight osbp_* tools, each with the spec's input schema", async () => {
    const { tools } = await session.client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(TOOL_NAMES.map((n) => MCP_TOOL_NAMES[n]).sort());
    for (const name of TOOL_NAMES) {
      expect(tools.find((t) => t.name === MCP_TOOL_NAMES[name])?.inputSchema).toEqual(
        TOOL_INPUT_SCHEMAS[name],
      );
    }
  });

  it("answers service.describe on the conformance host", async () => {
    const r = await call("osbp_service_describe", DESCRIBE);
    expect(r.isError).toBe(false);
    expect(r.envelope).toMatchObject({
      ok: true,
      value: { id: expect.any(String) as unknown, name: expect.any(String) as unknown },
    });
    expect(r.envelope.audit_event_id).toMatch(/^aud_/);
    expect(JSON.parse(r.text)).toEqual(r.envelope);
  });

  it.each([
    ["a missing required member", "osbp_policy_explain", {}, "/service_id"],
    ["a wrong type", "osbp_availability_find", { date: 5 }, "/date"],
    ["a malformed date", "osbp_availability_find", { date: "tomorrow" }, "/date"],
    ["an extra member", "osbp_booking_status", { booking_id: "b_1", verbose: true }, "/verbose"],
    [
      "a non-object where an object belongs",
      "osbp_booking_status",
      { booking_id: "b_1", customer: 7 },
      "/customer",
    ],
    ["an empty string id", "osbp_service_describe", { service_id: "" }, "/service_id"],
  ])(
    "refuses %s with a schema Problem naming the field, then keeps answering",
    async (_l, tool, args, field) => {
      const r = await call(tool, args);
      expect(r.isError).toBe(true);
      expect(r.envelope).toMatchObject({
        ok: false,
        problem: { code: "invalid_input", retryable: false },
      });
      expect(Object.keys(r.envelope.problem ?? {}).sort()).toEqual(["code", "message", "retryable"]);
      expect(r.envelope.problem?.message).toContain(field);
      const next = await call("osbp_service_describe", DESCRIBE);
      expect(next.envelope.ok).toBe(true);
    },
  );

  it("refuses a bad mandate field as invalid_mandate", async () => {
    const r = await call("osbp_booking_create", {
      mandate: { id: "mnd_1" },
      idempotency_key: "idem_e2e_1",
      service_id: "s",
      schedule_id: "sch",
      date: "2026-05-05",
      time: "13:00",
      customer: { display_name: "Test Person" },
    });
    expect(r.envelope).toMatchObject({ ok: false, problem: { code: "invalid_mandate" } });
    expect(r.envelope.problem?.message).toMatch(/\/mandate\//);
    expect(r.envelope.problem).not.toHaveProperty("field");
  });

  it("answers handoff.request with requires_human", async () => {
    const r = await call("osbp_handoff_request", { reason: "slot_taken", message: "The slot is gone." });
    expect(r.envelope).toMatchObject({
      ok: true,
      value: { status: "requires_human", reason: "slot_taken", message: "The slot is gone." },
    });
  });

  it("makes an unknown tool an MCP error, and non-object arguments too; neither ends the process", async () => {
    await expect(
      session.client.callTool({ name: "osbp_booking_cancel", arguments: {} }),
    ).rejects.toBeInstanceOf(McpError);
    await expect(
      session.client.callTool({ name: "osbp_service_describe", arguments: "x" as never }),
    ).rejects.toBeInstanceOf(McpError);
    expect((await call("osbp_service_describe", DESCRIBE)).envelope.ok).toBe(true);
  });

  it("has written one audit line per tool call, carrying the ids the envelopes returned", async () => {
    const lines = (await readFile(session.paths.audit, "utf8")).split("\n").filter((l) => l !== "");
    const events = lines.map((l) => JSON.parse(l) as { id: string; tool_name: string });
    expect(events.map((e) => e.id)).toEqual(auditIds);
    expect(new Set(events.map((e) => e.tool_name))).toEqual(
      new Set([
        "service.describe",
        "policy.explain",
        "availability.find",
        "booking.status",
        "booking.create",
        "handoff.request",
      ]),
    );
  });

  it("logs to stderr only, and exits by itself when the client closes stdin", async () => {
    expect(session.stderr()).toMatch(/serving OSBP 0\.1\.0 for host/);
    const pid = session.pid;
    await session.close();
    // The SDK client SIGTERMs a child that outlives stdin by 2 s; main.ts would then log it.
    expect(session.stderr()).not.toMatch(/SIGTERM|SIGKILL|shutting down/);
    expect(pid).not.toBeNull();
    expect(() => process.kill(pid ?? 0, 0)).toThrow();
  });
});

describe("the raw process", { timeout: SPAWN_MS }, () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "osbp-raw-"));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("writes nothing but JSON-RPC frames on stdout and exits 0 when stdin ends", async () => {
    const child = spawn(process.execPath, [...(await gatewayCli()), "mcp", "--host", CONFORMANCE_HOST_ID], {
      cwd: REPO,
      env: {
        PATH: process.env["PATH"] ?? "",
        OSBP_AUDIT_LOG_PATH: join(dir, "audit.jsonl"),
        OSBP_IDEMPOTENCY_PATH: join(dir, "idem.json"),
      },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (b: Buffer) => (stdout += b.toString()));
    child.stderr.on("data", (b: Buffer) => (stderr += b.toString()));
    const exited = new Promise<number | null>((done) => child.on("exit", (code) => done(code)));
    const frame = (m: object) => `${JSON.stringify(m)}\n`;
    child.stdin.write(
      frame({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: {
          protocolVersion: "2025-06-18",
          capabilities: {},
          clientInfo: { name: "raw", version: "0" },
        },
      }) +
        frame({ jsonrpc: "2.0", method: "notifications/initialized" }) +
        frame({ jsonrpc: "2.0", id: 2, method: "tools/list" }) +
        frame({
          jsonrpc: "2.0",
          id: 3,
          method: "tools/call",
          params: { name: "osbp_service_describe", arguments: {} },
        }),
    );
    child.stdin.end();
    expect(await exited).toBe(0);
    const lines = stdout.split("\n").filter((l) => l !== "");
    const messages = lines.map((l) => JSON.parse(l) as { jsonrpc: string; id: number });
    expect(messages.every((m) => m.jsonrpc === "2.0")).toBe(true);
    expect(messages.map((m) => m.id)).toEqual([1, 2, 3]);
    expect(stderr).toMatch(/booking-gateway mcp: serving OSBP/);
  });
});
