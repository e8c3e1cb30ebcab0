/**
 * An MCP client that starts a FRESH `booking-gateway mcp` process for every call (the MCP
 * Inspector CLI does), without Redis: the processes share only GATEWAY_DATA_DIR. The approval
 * token issued by one process must approve the retry another receives (OSBP "booking.create"),
 * and booking.status in a later process must find the booking (OSBP "booking.status"): on a
 * synthetic platform host and on the embedded calendar host, whose booking waits for the
 * approver's link (docs/ARCHITECTURE.md, Calendar sync) and then reads as booked.
 */
import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { embeddedCalendarHost } from "../../../../src/booking/hosts/index.js";
import { createHttpApp } from "../../../../src/gateway/app/app.js";
import { buildGatewayRuntime } from "../../../../src/gateway/runtime/runtime.js";
import {
  MCP_TOOL_NAMES,
  extractApprovalToken,
  type BookingMandate,
  type Booking,
  type Receipt,
  type Service,
  type Slot,
  type ToolName,
  type ToolResult,
} from "../../../../src/protocol/osbp/index.js";
import { gatewayCli } from "../../../support/gateway-cli.js";

const CUSTOMER = { display_name: "Philippa Fresh-Process", phone: "+15555550163", email: "pf@example.com" };

let dir: string;
let processes = 0;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "osbp-fresh-"));
});
afterAll(async () => {
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

/** One call in its own process: spawn, initialize, call, close (the child exits). */
async function freshCall<T>(host: string, tool: ToolName, args: unknown): Promise<ToolResult<T>> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [...(await gatewayCli()), "mcp", "--host", host],
    cwd: dir,
    // No REDIS_URL: only the data dir is shared between the processes.
    env: { GATEWAY_DATA_DIR: join(dir, "data"), OSBP_AUDIT_LOG_PATH: join(dir, "audit.jsonl") },
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (c: Buffer) => (stderr += c.toString()));
  const client = new Client({ name: "fresh-process-agent", version: "0.0.0" });
  await client.connect(transport);
  processes++;
  try {
    const r = await client.callTool({
      name: MCP_TOOL_NAMES[tool],
      arguments: args as Record<string, unknown>,
    });
    const envelope = r.structuredContent as ToolResult<T> | undefined;
    if (envelope === undefined) throw new Error(`${tool}: no envelope\n${stderr}`);
    return envelope;
  } finally {
    await client.close();
  }
}

function valueOf<T>(e: ToolResult<T>): T {
  if (!e.ok) throw new Error(`expected ok, got ${JSON.stringify(e.problem)}`);
  return e.value;
}

function mandateFor(slot: Slot, price: Service["price"]): BookingMandate {
  return {
    id: `mnd_fresh_${slot.service_id}`,
    expires_at: new Date(Date.now() + 3_600_000).toISOString(),
    allowed_actions: ["booking.create"],
    organization_id: slot.organization_id,
    service_ids: [slot.service_id],
    ...(slot.provider_id !== undefined && { provider_ids: [slot.provider_id] }),
    schedule_ids: [slot.schedule_id],
    earliest_start: slot.starts_at_local,
    latest_end: slot.ends_at_local,
    max_price: { amount_minor: price?.amount_minor ?? 0, currency: price?.currency ?? "CAD" },
    allow_policy_fee: true,
    max_extra_fee: { amount_minor: 100_000, currency: price?.currency ?? "CAD" },
  };
}

/** describe → availability → preflight → approved create, each in a fresh process. */
async function bookThroughFreshProcesses(host: string, serviceId: string): Promise<Receipt> {
  const service = valueOf(await freshCall<Service>(host, "service.describe", { service_id: serviceId }));
  expect(service.id).toBe(serviceId);
  const slot = await firstSlot(host, serviceId);
  const [date, time] = slot.starts_at_local.split("T") as [string, string];
  const input = {
    mandate: mandateFor(slot, service.price),
    idempotency_key: `fresh-${host}`,
    service_id: serviceId,
    schedule_id: slot.schedule_id,
    ...(slot.provider_id !== undefined && { provider_id: slot.provider_id }),
    date,
    time: time.slice(0, 5),
    customer: CUSTOMER,
  };
  const preflight = await freshCall<Receipt>(host, "booking.create", input);
  if (preflight.ok) throw new Error("the preflight booked without approval");
  expect(preflight.problem.code, preflight.problem.message).toBe("requires_user_confirmation");
  const token = extractApprovalToken(preflight.problem.message);
  expect(token).toBeDefined();
  // The approved retry reaches another process: the token must verify there.
  const approved = await freshCall<Receipt>(host, "booking.create", {
    ...input,
    approval: { confirmed: true, token },
  });
  return valueOf(approved);
}

async function firstSlot(host: string, serviceId: string): Promise<Slot> {
  // Tomorrow and the days after (a calendar host works some weekdays only).
  for (let day = 1; day <= 7; day++) {
    const date = new Date(Date.now() + day * 86_400_000).toISOString().slice(0, 10);
    const slots = valueOf(
      await freshCall<Slot[]>(host, "availability.find", { service_id: serviceId, date }),
    );
    if (slots.length > 0) return slots[Math.floor(slots.length / 2)]!;
  }
  throw new Error(`no slot at ${host} within a week`);
}

describe("a fresh mcp process per call, without Redis (only GATEWAY_DATA_DIR shared)", () => {
  it("a platform host: describe → availability → preflight → approved create → status booked", async () => {
    const before = processes;
    const receipt = await bookThroughFreshProcesses("maple-street-auto", "oil-change");
    const status = valueOf(
      await freshCall<Booking>("maple-street-auto", "booking.status", { booking_id: receipt.booking_id }),
    );
    expect(status).toMatchObject({ id: receipt.booking_id, status: "booked", service_id: "oil-change" });
    expect(processes - before).toBeGreaterThanOrEqual(5);

    // The secret and the state are owner-only files in an owner-only directory.
    const data = join(dir, "data");
    for (const [path, mode] of [
      [join(data, "osbp"), 0o700],
      [join(data, "osbp", "approval-secret"), 0o600],
      [join(data, "osbp", "idempotency.json"), 0o600],
      [join(data, "embedded-state"), 0o700],
      [join(data, "embedded-state", "memory.json"), 0o600],
    ] as const) {
      expect((await stat(path)).mode & 0o777, path).toBe(mode);
    }
  }, 240_000);

  it("the calendar host: pending until the approver answers the link, then booked", async () => {
    const host = "nora-okafor-tutoring";
    const receipt = await bookThroughFreshProcesses(host, "lesson");
    expect(receipt.text).toMatch(/pending|approv/i);
    const pending = valueOf(
      await freshCall<Booking>(host, "booking.status", { booking_id: receipt.booking_id }),
    );
    expect(pending.status).toBe("pending");

    // The approver opens the link the gateway sent, served from the same data dir.
    const messages = await readFile(join(dir, "data", "host-messages.jsonl"), "utf8");
    const text = (JSON.parse(messages.trim().split("\n").at(-1) ?? "{}") as { text?: string }).text ?? "";
    const link = /https?:\/\/\S+\/approve\/\S+/.exec(text)?.[0];
    expect(link, text).toBeDefined();
    const built = await buildGatewayRuntime({
      hosts: [embeddedCalendarHost()],
      publicOrigin: "http://127.0.0.1:8787",
      dataDir: join(dir, "data"),
      memoryStateDir: join(dir, "data", "embedded-state"),
    });
    if (!built.ok) throw new Error(built.error.message);
    const gateway = built.value;
    try {
      const app = createHttpApp(gateway);
      const answer = await app.request(new URL(link!).pathname, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: "action=approve",
      });
      expect(answer.status, await answer.clone().text()).toBeLessThan(400);
      expect(await answer.text()).toContain("approved");
    } finally {
      await gateway.close();
    }

    const booked = valueOf(
      await freshCall<Booking>(host, "booking.status", { booking_id: receipt.booking_id }),
    );
    expect(booked).toMatchObject({ id: receipt.booking_id, status: "booked", service_id: "lesson" });
  }, 300_000);
});
