/**
 * The OSBP edge as an agent host meets it, in process: the MCP server of src/edges/osbp/mcp
 * (tool dispatcher, audit log) over the core adapter of a running gateway, driven by the MCP
 * SDK's Client over an InMemoryTransport pair. The same tools `booking-gateway mcp` serves over
 * stdio, without a child process, so the gateway's own metrics and spans see the calls.
 */
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { createCoreAdapter } from "../../../src/edges/osbp/adapter/index.js";
import { createJsonlAuditLog } from "../../../src/edges/osbp/audit/jsonl.js";
import { MemoryIdempotencyStore } from "../../../src/edges/osbp/idempotency/memory.js";
import { createToolDispatcher } from "../../../src/edges/osbp/mcp/dispatch.js";
import { createOsbpMcpServer } from "../../../src/edges/osbp/mcp/server.js";
import {
  extractApprovalToken,
  MCP_TOOL_NAMES,
  type Slot,
  type ToolName,
  type ToolResult,
} from "../../../src/protocol/osbp/index.js";
import { instantToWallClock } from "../../../src/protocol/time/index.js";
import { DAY_MS } from "./agents.js";
import type { E2eGateway } from "./gateway.js";

export interface OsbpSession {
  call<T = unknown>(tool: ToolName, args: unknown): Promise<ToolResult<T>>;
  close(): Promise<void>;
}

export async function osbpSession(gw: E2eGateway, hostId: string): Promise<OsbpSession> {
  const host = gw.runtime.hosts.get(hostId);
  if (host === undefined) throw new Error(`no host ${hostId}`);
  const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
  const adapter = createCoreAdapter({
    core: gw.runtime.service,
    platform: host.connector.platform,
    hostId,
    idempotency: new MemoryIdempotencyStore(),
    clock: gw.clock,
    logger: quiet,
  });
  const audit = await createJsonlAuditLog({
    path: join(gw.dataDir, "osbp", `audit-${hostId}.jsonl`),
    clock: gw.clock,
  });
  const server = createOsbpMcpServer({ dispatcher: createToolDispatcher({ adapter, audit, logger: quiet }) });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "e2e-agent-host", version: "1.0.0" });
  await client.connect(clientSide);
  return {
    async call<T>(tool: ToolName, args: unknown) {
      const r = await client.callTool({
        name: MCP_TOOL_NAMES[tool],
        arguments: args as Record<string, unknown>,
      });
      return r.structuredContent as ToolResult<T>;
    },
    async close() {
      await client.close();
      await server.close();
      await audit.close();
    },
  };
}

const pad = (n: number) => String(n).padStart(2, "0");

/**
 * Books the last free slot of `serviceId` `daysAhead` days from now over OSBP: availability.find,
 * then booking.create twice (the person's approval: OSBP "booking.create", final confirmation).
 * Answers the receipt's booking id.
 */
export async function osbpBook(
  session: OsbpSession,
  gw: E2eGateway,
  opts: {
    readonly serviceId: string;
    readonly timezone: string;
    readonly daysAhead: number;
    readonly key: string;
  },
): Promise<string> {
  const w = instantToWallClock(gw.clock.now() + opts.daysAhead * DAY_MS, opts.timezone);
  const date = `${w.year}-${pad(w.month)}-${pad(w.day)}`;
  const found = await session.call<Slot[]>("availability.find", { service_id: opts.serviceId, date });
  if (!found.ok) throw new Error(`availability.find: ${found.problem.code}`);
  const slot = found.value.at(-1);
  if (slot === undefined) throw new Error(`no OSBP slot on ${date}`);
  const input = {
    idempotency_key: opts.key,
    service_id: opts.serviceId,
    schedule_id: slot.schedule_id,
    ...(slot.provider_id !== undefined && { provider_id: slot.provider_id }),
    date,
    time: (slot.starts_at_local.split("T")[1] ?? "").slice(0, 5),
    customer: { display_name: "Ada Lovelace", email: "ada@mail.example", phone: "+14165550100" },
    mandate: {
      id: `mnd_${opts.key}`,
      expires_at: new Date(gw.clock.now() + 20 * DAY_MS).toISOString().replace(/\.\d{3}Z$/, "Z"),
      allowed_actions: ["booking.create"],
      organization_id: slot.organization_id,
      earliest_start: `${date}T00:00:00`,
      latest_end: `${date}T23:59:00`,
      max_price: { amount_minor: 1_000_000, currency: "CAD" },
    },
  };
  const challenge = await session.call("booking.create", input);
  if (challenge.ok || challenge.problem.code !== "requires_user_confirmation")
    throw new Error(`booking.create: expected requires_user_confirmation, got ${JSON.stringify(challenge)}`);
  const token = extractApprovalToken(challenge.problem.message);
  if (token === undefined) throw new Error("booking.create: no approval token");
  const receipt = await session.call<{ booking_id: string }>("booking.create", {
    ...input,
    approval: { confirmed: true, token },
  });
  if (!receipt.ok) throw new Error(`booking.create: ${receipt.problem.code} ${receipt.problem.message}`);
  return receipt.value.booking_id;
}
