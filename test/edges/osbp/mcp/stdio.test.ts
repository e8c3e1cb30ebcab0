/**
 * The stdio runner in process, on PassThrough streams standing in for stdin and stdout:
 * stdout carries only JSON-RPC frames, the server closes when stdin ends, and a call in
 * flight at that moment still gets its answer (OSBP "Transport").
 */
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { startOsbpStdioServer } from "../../../../src/edges/osbp/mcp/index.js";
import type { Logger } from "../../../../src/protocol/logger.js";
import type { AuditEntry, AuditLog } from "../../../../src/edges/osbp/audit/port.js";
import type { AdapterResult, BookingAdapter, Service } from "../../../../src/protocol/osbp/index.js";
import { service } from "../../../protocol/osbp/samples.js";

/** A JSON-RPC frame as this test reads it. */
interface Frame {
  jsonrpc: string;
  id?: number;
  result?: { structuredContent?: Record<string, unknown>; isError?: boolean };
}

function deferred<T>() {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

function setup() {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  let out = "";
  stdout.on("data", (b: Buffer) => (out += b.toString()));
  const entries: AuditEntry[] = [];
  const audit: AuditLog = {
    record: (entry) => {
      entries.push(entry);
      return Promise.resolve({
        id: `aud_${entries.length}`,
        tool_name: entry.tool_name,
        created_at: new Date(0).toISOString(),
        source: "test",
        input: entry.input,
        result: entry.result,
        input_hash: "",
        result_hash: "",
      });
    },
    close: () => Promise.resolve(),
  };
  const warnings: string[] = [];
  const logger: Logger = {
    info: () => undefined,
    warn: (m) => void warnings.push(m),
    error: (m) => void warnings.push(m),
  };
  let gate: Promise<void> = Promise.resolve();
  const unavailable = (): Promise<AdapterResult<never>> => Promise.reject(new Error("not in this test"));
  const adapter: BookingAdapter = {
    describeService: async (): Promise<AdapterResult<Service>> => {
      await gate;
      return { ok: true, value: service() };
    },
    findAvailability: unavailable,
    explainPolicy: unavailable,
    sendVerification: unavailable,
    verifyCode: unavailable,
    createBooking: unavailable,
    getBooking: unavailable,
  };
  const send = (message: object): void => void stdin.write(`${JSON.stringify(message)}\n`);
  /** Every stdout line parsed; a line that is not a JSON-RPC message fails the test. */
  const frames = (): Frame[] =>
    out
      .split("\n")
      .filter((l) => l !== "")
      .map((l) => {
        const frame = JSON.parse(l) as Frame;
        expect(frame.jsonrpc).toBe("2.0");
        return frame;
      });
  const responseTo = async (id: number): Promise<Frame> => {
    for (;;) {
      const found = frames().find((f) => f.id === id);
      if (found !== undefined) return found;
      await new Promise((r) => setImmediate(r));
    }
  };
  const initialize = async (): Promise<void> => {
    send({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "0" } },
    });
    await responseTo(0);
    send({ jsonrpc: "2.0", method: "notifications/initialized" });
  };
  return {
    stdin,
    stdout,
    entries,
    warnings,
    send,
    frames,
    responseTo,
    initialize,
    hold: (p: Promise<void>): void => {
      gate = p;
    },
    start: () => startOsbpStdioServer({ adapter, audit, logger, stdin, stdout }),
  };
}

const callDescribe = (id: number) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name: "osbp_service_describe", arguments: {} },
});

describe("startOsbpStdioServer on stdio streams", () => {
  it("answers with JSON-RPC frames only, and closes when stdin ends", async () => {
    const t = setup();
    const running = await t.start();
    await t.initialize();
    t.send(callDescribe(1));
    const answer = await t.responseTo(1);
    expect(answer.result?.structuredContent).toMatchObject({ ok: true, audit_event_id: "aud_1" });
    t.stdin.end();
    await running.closed;
    expect(t.frames().map((f) => f.id)).toEqual([0, 1]);
  });

  it("lets a call in flight when stdin ends finish, and writes its answer before closing", async () => {
    const t = setup();
    const release = deferred<void>();
    t.hold(release.promise);
    const running = await t.start();
    await t.initialize();
    t.send(callDescribe(7));
    // Let the request reach the (held) adapter before the client goes away.
    await new Promise((r) => setImmediate(r));
    t.stdin.end();
    let closed = false;
    void running.closed.then(() => (closed = true));
    await new Promise((r) => setImmediate(r));
    expect(closed).toBe(false);
    release.resolve();
    await running.closed;
    const answer = t.frames().find((f) => f.id === 7);
    expect(answer?.result?.structuredContent).toMatchObject({ ok: true });
    expect(t.entries).toHaveLength(1);
  });

  it("survives a line that is not JSON and keeps serving", async () => {
    const t = setup();
    const running = await t.start();
    await t.initialize();
    t.stdin.write("this is not json\n");
    t.send(callDescribe(2));
    expect((await t.responseTo(2)).result?.isError).toBe(false);
    expect(t.warnings.length).toBeGreaterThan(0);
    await running.close();
  });

  it("close() is idempotent and resolves `closed`", async () => {
    const t = setup();
    const running = await t.start();
    await Promise.all([running.close(), running.close()]);
    await running.closed;
  });
});
