/**
 * The OSBP MCP edge in process: the dispatcher and the low-level MCP Server, driven by the
 * SDK's Client over an InMemoryTransport pair. The adapter is a hand-written BookingAdapter
 * (the edge is what is tested here, not an adapter): it records its calls, and each method can
 * be told to answer, fail, throw, or touch upstream.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { createToolDispatcher, type ToolDispatcher } from "../../../../src/edges/osbp/mcp/index.js";
import type { Logger } from "../../../../src/protocol/logger.js";
import { createOsbpMcpServer } from "../../../../src/edges/osbp/mcp/server.js";
import type { AuditEntry, AuditLog } from "../../../../src/edges/osbp/audit/port.js";
import {
  MCP_TOOL_NAMES,
  TOOL_INPUT_SCHEMAS,
  TOOL_NAMES,
  problem,
  redactForAudit,
  type AdapterResult,
  type AuditEvent,
  type BookingAdapter,
  type PlatformIdentity,
  type Problem,
  type UpstreamMeta,
} from "../../../../src/protocol/osbp/index.js";
import { createInput, policy, service, slot } from "../../../protocol/osbp/samples.js";

// ---- fakes ----

type Method = Exclude<keyof BookingAdapter, "platform" | "upstreamMeta">;
type Behaviour = (input: unknown) => Promise<AdapterResult<unknown>> | AdapterResult<unknown>;

const PLATFORM: PlatformIdentity = { vendor: "test-platform", api_version: "2026-01-01" };

/** A BookingAdapter whose every method answers from `behaviours`, and records what it got. */
function fakeAdapter() {
  let meta: UpstreamMeta | undefined;
  let n = 0;
  const calls: Array<{ method: Method; input: unknown }> = [];
  /** Simulates an upstream round trip: a new meta object, as a real adapter makes one. */
  const touchUpstream = (status = 200): void => {
    n += 1;
    meta = { call: `GET /v1/thing/${n}`, status, request_id: `req_${n}` };
  };
  const defaults: Record<Method, Behaviour> = {
    describeService: () => (touchUpstream(), { ok: true, value: service() }),
    findAvailability: () => (touchUpstream(), { ok: true, value: [slot()] }),
    explainPolicy: () => (touchUpstream(), { ok: true, value: policy() }),
    sendVerification: () => (
      touchUpstream(),
      { ok: true, value: { sent: true, method: "sms", purpose: "booking:org_1" } }
    ),
    verifyCode: () => ({ ok: false, problem: problem("invalid_verification_purpose") }),
    createBooking: () => (
      touchUpstream(201),
      { ok: true, value: { id: "receipt_1", booking_id: "appointment_1", text: "Booked." } }
    ),
    getBooking: () => (touchUpstream(), { ok: true, value: { id: "appointment_1", status: "booked" } }),
  };
  const behaviours: Record<Method, Behaviour> = { ...defaults };
  const method =
    (name: Method) =>
    async (input: unknown): Promise<AdapterResult<never>> => {
      calls.push({ method: name, input });
      return (await behaviours[name](input)) as AdapterResult<never>;
    };
  const adapter: BookingAdapter = {
    platform: PLATFORM,
    get upstreamMeta() {
      return meta;
    },
    describeService: method("describeService"),
    findAvailability: method("findAvailability"),
    explainPolicy: method("explainPolicy"),
    sendVerification: method("sendVerification"),
    verifyCode: method("verifyCode"),
    createBooking: method("createBooking"),
    getBooking: method("getBooking"),
  };
  return { adapter, calls, behaviours, touchUpstream };
}

/** An AuditLog that keeps entries in memory and redacts as the real one must. */
function memoryAudit() {
  const entries: AuditEntry[] = [];
  let failing = false;
  const log: AuditLog = {
    record(entry) {
      if (failing) return Promise.reject(new Error("disk full"));
      entries.push(entry);
      const snap = redactForAudit(entry.input, entry.result);
      const event: AuditEvent = {
        id: `aud_${entries.length}`,
        tool_name: entry.tool_name,
        ...(entry.mandate_id !== undefined && { mandate_id: entry.mandate_id }),
        created_at: new Date(0).toISOString(),
        source: "osbp-local-mcp",
        ...snap,
        ...(entry.platform !== undefined && { platform: entry.platform }),
        ...(entry.upstream !== undefined && { upstream: entry.upstream }),
      };
      return Promise.resolve(event);
    },
    close: () => Promise.resolve(),
  };
  return {
    log,
    entries,
    fail: () => {
      failing = true;
    },
  };
}

function memoryLogger() {
  const lines: Array<{ level: string; message: string; fields?: Readonly<Record<string, unknown>> }> = [];
  const at =
    (level: string) =>
    (message: string, fields?: Readonly<Record<string, unknown>>): void =>
      void lines.push({ level, message, ...(fields !== undefined && { fields }) });
  const logger: Logger = { info: at("info"), warn: at("warn"), error: at("error") };
  return { logger, lines };
}

// ---- harness: a Server and a Client on a linked in-memory pair ----

/** The envelope with both variants' members optional, so a test can look without narrowing. */
interface LooseEnvelope {
  ok: boolean;
  value?: unknown;
  problem?: Problem;
  audit_event_id: string;
  osbp_runtime?: unknown;
}

const open: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of open.splice(0)) await close();
});

async function harness() {
  const fake = fakeAdapter();
  const audit = memoryAudit();
  const log = memoryLogger();
  const dispatcher = createToolDispatcher({ adapter: fake.adapter, audit: audit.log, logger: log.logger });
  const server = createOsbpMcpServer({ dispatcher });
  const client = new Client({ name: "osbp-test-agent", version: "0.0.0" });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  await client.connect(clientSide);
  open.push(async () => {
    await client.close();
    await server.close();
  });
  /** Calls an osbp_* tool; the envelope is the structured content. */
  const call = async (tool: string, args?: unknown) => {
    const r = await client.callTool({ name: tool, arguments: args as Record<string, unknown> });
    const text = (r.content as Array<{ type: string; text: string }>)[0]?.text ?? "";
    return {
      envelope: r.structuredContent as LooseEnvelope,
      isError: r.isError === true,
      text,
      raw: r,
    };
  };
  return { ...fake, audit, log, client, call, dispatcher };
}

// ---- tests ----

describe("tools/list (OSBP Naming, Transport)", () => {
  it("announces exactly the eight flattened names, each with the spec's input schema verbatim", async () => {
    const { client } = await harness();
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(TOOL_NAMES.map((n) => MCP_TOOL_NAMES[n]));
    for (const name of TOOL_NAMES) {
      const tool = tools.find((t) => t.name === MCP_TOOL_NAMES[name]);
      expect(tool?.inputSchema).toEqual(TOOL_INPUT_SCHEMAS[name]);
      expect(tool?.description?.length).toBeGreaterThan(80);
    }
  });

  it("tells the agent, in booking.create's description, about the approval retry and the token", async () => {
    const { client } = await harness();
    const { tools } = await client.listTools();
    const create = tools.find((t) => t.name === "osbp_booking_create")?.description ?? "";
    expect(create).toMatch(/without approval/i);
    expect(create).toMatch(/same idempotency_key/);
    expect(create).toMatch(/never the token/i);
    const handoff = tools.find((t) => t.name === "osbp_handoff_request")?.description ?? "";
    expect(handoff).toMatch(/no side effect/);
  });
});

describe("tools/call: the Result Envelope (OSBP Result Envelope)", () => {
  it("answers with compact JSON text and the same envelope as structured content", async () => {
    const h = await harness();
    const r = await h.call("osbp_service_describe", { service_id: "service_123" });
    expect(r.isError).toBe(false);
    expect(r.envelope).toEqual({ ok: true, value: service(), audit_event_id: "aud_1" });
    expect(r.text).toBe(JSON.stringify(r.envelope));
    expect(r.text).not.toMatch(/\n/);
    expect(h.calls).toEqual([{ method: "describeService", input: { service_id: "service_123" } }]);
  });

  it("marks a Problem envelope isError and passes the Problem through", async () => {
    const h = await harness();
    h.behaviours.explainPolicy = () => ({ ok: false, problem: problem("rate_limited") });
    const r = await h.call("osbp_policy_explain", { service_id: "service_123" });
    expect(r.isError).toBe(true);
    expect(r.envelope).toEqual({
      ok: false,
      problem: problem("rate_limited"),
      audit_event_id: "aud_1",
    });
  });

  it("passes osbp_runtime through (local_cache_replay)", async () => {
    const h = await harness();
    const runtime = { idempotency: "local_cache_replay", message: "replayed" } as const;
    h.behaviours.createBooking = () => ({
      ok: true,
      value: { id: "receipt_1", booking_id: "appointment_1", text: "Booked." },
      osbp_runtime: runtime,
    });
    const r = await h.call("osbp_booking_create", createInput());
    expect(r.envelope).toEqual({
      ok: true,
      value: { id: "receipt_1", booking_id: "appointment_1", text: "Booked." },
      audit_event_id: "aud_1",
      osbp_runtime: runtime,
    });
  });

  it("treats omitted arguments as {} (service.describe needs none)", async () => {
    const h = await harness();
    const r = await h.call("osbp_service_describe", undefined);
    expect(r.envelope.ok).toBe(true);
    expect(h.calls[0]?.input).toEqual({});
  });
});

describe("audit per call (OSBP Audit)", () => {
  it("records one event per call with the input, the envelope without its id, and the platform", async () => {
    const h = await harness();
    await h.call("osbp_availability_find", { date: "2026-05-05" });
    await h.call("osbp_booking_status", { booking_id: "appointment_1" });
    expect(h.audit.entries).toHaveLength(2);
    expect(h.audit.entries[0]).toEqual({
      tool_name: "availability.find",
      input: { date: "2026-05-05" },
      result: { ok: true, value: [slot()] },
      platform: PLATFORM,
      upstream: { call: "GET /v1/thing/1", status: 200, request_id: "req_1" },
    });
    expect(h.audit.entries[1]?.tool_name).toBe("booking.status");
  });

  it("records upstream only when an upstream call happened during the tool call", async () => {
    const h = await harness();
    await h.call("osbp_service_describe", {});
    // A local answer (an idempotency replay, a refused mandate) leaves the meta object as it was.
    h.behaviours.createBooking = () => ({ ok: false, problem: problem("price_exceeds_mandate") });
    await h.call("osbp_booking_create", createInput());
    expect(h.audit.entries[0]?.upstream).toBeDefined();
    expect(h.audit.entries[1]).not.toHaveProperty("upstream");
    expect(h.audit.entries[1]?.platform).toEqual(PLATFORM);
  });

  it("records the mandate id: mandate.id for booking.create, mandate_id for handoff.request", async () => {
    const h = await harness();
    await h.call("osbp_booking_create", createInput());
    await h.call("osbp_handoff_request", {
      reason: "requires_payment_handoff",
      message: "Deposit required.",
      mandate_id: "mnd_7",
    });
    await h.call("osbp_service_describe", {});
    expect(h.audit.entries.map((e) => e.mandate_id)).toEqual(["mnd_2026_05_01_001", "mnd_7", undefined]);
  });

  it("audits a schema-invalid call too, so its envelope has an audit_event_id", async () => {
    const h = await harness();
    const r = await h.call("osbp_policy_explain", {});
    expect(r.envelope.audit_event_id).toBe("aud_1");
    expect(h.audit.entries[0]).toMatchObject({ tool_name: "policy.explain", input: {} });
    expect(h.audit.entries[0]).not.toHaveProperty("upstream");
  });
});

describe("schema-invalid input never reaches the adapter", () => {
  it.each([
    ["missing required", "osbp_policy_explain", {}, "invalid_input", "/service_id"],
    ["wrong type", "osbp_availability_find", { date: 20260505 }, "invalid_input", "/date"],
    ["extra member", "osbp_service_describe", { service_id: "s", colour: "red" }, "invalid_input", "/colour"],
    [
      "non-object member",
      "osbp_verification_send",
      { customer: "jane", purpose: "booking:o" },
      "invalid_input",
      "/customer",
    ],
    [
      "mandate field (invalid_mandate)",
      "osbp_booking_create",
      { ...createInput(), mandate: { ...createInput().mandate, expires_at: "2026-05-01T23:59:59" } },
      "invalid_mandate",
      "/mandate/expires_at",
    ],
  ])("%s -> a Problem naming the field", async (_label, tool, args, code, field) => {
    const h = await harness();
    const r = await h.call(tool, args);
    expect(r.isError).toBe(true);
    expect(r.envelope.ok).toBe(false);
    expect(r.envelope.problem).toMatchObject({ code, retryable: false });
    expect(Object.keys(r.envelope.problem ?? {}).sort()).toEqual(["code", "message", "retryable"]);
    expect(r.envelope.problem?.message).toContain(field);
    expect(h.calls).toEqual([]);
    // and the server keeps answering
    expect((await h.call("osbp_service_describe", {})).envelope.ok).toBe(true);
  });

  it("a non-object input is refused by the dispatcher with the whole input named", async () => {
    const h = await harness();
    const r = await h.dispatcher.call("booking.status", "appointment_1");
    expect(r).toMatchObject({ ok: false, problem: { code: "invalid_input" } });
    expect(!r.ok && r.problem.message).toContain("the input");
    expect(h.calls).toEqual([]);
  });

  // MCP defines tools/call arguments as an object: the SDK refuses anything else as a malformed
  // request before any tool handler runs, so it is a JSON-RPC error rather than an envelope.
  it("non-object arguments at the MCP level are an MCP error naming arguments, and serving goes on", async () => {
    const h = await harness();
    const error = await h.client
      .callTool({ name: "osbp_service_describe", arguments: ["x"] as never })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).message).toMatch(/arguments/);
    expect(h.calls).toEqual([]);
    expect((await h.call("osbp_service_describe", {})).envelope.ok).toBe(true);
  });
});

describe("unknown tools", () => {
  it("are an MCP error naming the tools this server has", async () => {
    const h = await harness();
    const error = await h.client
      .callTool({ name: "osbp_booking_cancel", arguments: {} })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpError);
    expect(error).toMatchObject({ code: ErrorCode.InvalidParams });
    expect((error as McpError).message).toMatch(/Unknown tool "osbp_booking_cancel".*osbp_booking_create/);
    expect(h.audit.entries).toEqual([]);
  });

  it("include the dotted protocol names (only the flattened ones are MCP tools)", async () => {
    const h = await harness();
    await expect(h.client.callTool({ name: "booking.create", arguments: {} })).rejects.toBeInstanceOf(
      McpError,
    );
  });
});

describe("an adapter that throws (OSBP internal_adapter_error)", () => {
  it("becomes an audited internal_adapter_error with a generic message; the stack goes to the logger only", async () => {
    const h = await harness();
    h.behaviours.getBooking = () => {
      throw new Error("db password=hunter2 at /srv/secret");
    };
    const r = await h.call("osbp_booking_status", { booking_id: "appointment_1" });
    expect(r.isError).toBe(true);
    expect(r.envelope).toEqual({
      ok: false,
      problem: {
        code: "internal_adapter_error",
        message: "The adapter failed unexpectedly; the failure was recorded",
        retryable: false,
      },
      audit_event_id: "aud_1",
    });
    expect(r.text).not.toMatch(/hunter2|secret/);
    expect(JSON.stringify(h.audit.entries)).not.toMatch(/hunter2/);
    const logged = h.log.lines.find((l) => l.level === "error");
    expect(logged?.fields?.["stack"]).toMatch(/hunter2/);

    // The server keeps serving.
    h.behaviours.getBooking = () => ({ ok: true, value: { id: "appointment_1", status: "booked" } });
    expect((await h.call("osbp_booking_status", { booking_id: "appointment_1" })).envelope.ok).toBe(true);
  });

  it("a rejected promise is the same as a throw", async () => {
    const h = await harness();
    h.behaviours.findAvailability = () => Promise.reject(new TypeError("boom"));
    const r = await h.call("osbp_availability_find", { date: "2026-05-05" });
    expect(r.envelope.problem?.code).toBe("internal_adapter_error");
  });

  it("an answer that is not an AdapterResult is an internal_adapter_error too", async () => {
    const h = await harness();
    h.behaviours.describeService = () => ({ value: service() }) as never;
    const r = await h.call("osbp_service_describe", {});
    expect(r.envelope.problem?.code).toBe("internal_adapter_error");
  });
});

describe("handoff.request (OSBP handoff.request)", () => {
  it("is answered by the edge with requires_human, without touching the adapter or upstream", async () => {
    const h = await harness();
    const input = {
      reason: "requires_payment_handoff",
      message: "This service requires a deposit. Please complete the booking with the merchant directly.",
      mandate_id: "mnd_2026_05_01_001",
    };
    const r = await h.call("osbp_handoff_request", input);
    expect(r.isError).toBe(false);
    expect(r.envelope).toEqual({
      ok: true,
      value: { status: "requires_human", ...input },
      audit_event_id: "aud_1",
    });
    expect(h.calls).toEqual([]);
    expect(h.audit.entries[0]).not.toHaveProperty("upstream");
  });

  it("records no upstream even when another call moved the adapter's meta meanwhile", async () => {
    const h = await harness();
    h.touchUpstream();
    await h.call("osbp_handoff_request", { reason: "slot_taken", message: "The slot is gone." });
    expect(h.audit.entries[0]).not.toHaveProperty("upstream");
    expect(h.audit.entries[0]?.result).toEqual({
      ok: true,
      value: { status: "requires_human", reason: "slot_taken", message: "The slot is gone." },
    });
  });
});

describe("when the audit log cannot be written", () => {
  async function failingHarness() {
    const h = await harness();
    h.audit.fail();
    return h;
  }

  it("booking.create still returns its receipt (the booking exists), with an id that says unrecorded", async () => {
    const h = await failingHarness();
    const r = await h.call("osbp_booking_create", createInput());
    expect(r.envelope).toMatchObject({ ok: true, value: { booking_id: "appointment_1" } });
    expect(r.envelope.audit_event_id).toMatch(/^aud_unrecorded_/);
    expect(h.log.lines.some((l) => l.level === "error" && /AUDIT WRITE FAILED/.test(l.message))).toBe(true);
  });

  it("a read fails closed with internal_adapter_error: nothing happened, a retry is free", async () => {
    const h = await failingHarness();
    const r = await h.call("osbp_service_describe", {});
    expect(r.isError).toBe(true);
    expect(r.envelope.problem?.code).toBe("internal_adapter_error");
    expect(r.envelope.audit_event_id).toMatch(/^aud_unrecorded_/);
  });

  it("the error log names the tool and outcome but carries no input", async () => {
    const h = await failingHarness();
    await h.call("osbp_booking_create", createInput());
    const line = JSON.stringify(h.log.lines);
    expect(line).toContain("booking.create");
    expect(line).not.toMatch(/Jane|\+15555550100|jane@example\.com/);
  });
});

describe("the dispatcher alone", () => {
  it("never rejects, whatever the adapter does", async () => {
    const fake = fakeAdapter();
    const audit = memoryAudit();
    const { logger } = memoryLogger();
    const d: ToolDispatcher = createToolDispatcher({ adapter: fake.adapter, audit: audit.log, logger });
    fake.behaviours.verifyCode = () => {
      // eslint-disable-next-line @typescript-eslint/only-throw-error -- what a careless adapter may do
      throw "not even an Error";
    };
    const r = await d.call("verification.verify", {
      customer: { phone: "+15555550100" },
      purpose: "booking:org_1",
      code: "123456",
    });
    expect(r).toMatchObject({ ok: false, problem: { code: "internal_adapter_error" } });
    // The verification code never reaches the audit snapshot (redaction is the audit log's job).
    expect(redactForAudit(audit.entries[0]?.input, audit.entries[0]?.result).input).toMatchObject({
      code: "[redacted:code]",
    });
  });
});
