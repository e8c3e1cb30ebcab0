/**
 * `booking-gateway mcp --host <id>` as a real child process (the built CLI:
 * test/support/gateway-cli.ts), driven by the official MCP client over stdio, the way an agent
 * host runs it (OSBP "Transport").
 *
 * Each session gets a fresh temporary directory: it is the child's working directory and holds
 * the audit log, the idempotency file and the synthetic platform's message log unless opts.env
 * names them. The directory is removed by close(); paths the caller chose are left alone.
 * REDIS_URL reaches the child only when opts.env sets it.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { ToolResult } from "../../src/protocol/osbp/index.js";
import { gatewayCli } from "./gateway-cli.js";

export interface McpCallResult {
  /** The Result Envelope (the structured content); cast to ToolResult<ToolValues[N]> to narrow. */
  envelope: ToolResult<unknown>;
  isError: boolean;
  /** The text content: the envelope as compact JSON. */
  text: string;
}

export interface McpSession {
  readonly client: Client;
  /** Absolute paths the child writes to. */
  readonly paths: { readonly audit: string; readonly idempotency: string; readonly messages: string };
  /** The child's pid (for checking that it is gone after close). */
  readonly pid: number | null;
  /** Calls an osbp_* tool; returns the envelope (structuredContent), isError and the text. */
  call(tool: string, args: unknown): Promise<McpCallResult>;
  /** Everything the child wrote to stderr so far. */
  stderr(): string;
  /** Closes the client (ends the child's stdin) and removes the session's temp directory. */
  close(): Promise<void>;
}

export interface StartMcpOptions {
  readonly host: string;
  readonly env?: Record<string, string>;
  readonly args?: string[];
  /** The child's working directory (default: the session's temp directory). */
  readonly cwd?: string;
}

export async function startMcpServer(opts: StartMcpOptions): Promise<McpSession> {
  const cli = await gatewayCli();
  const dir = await mkdtemp(join(tmpdir(), "osbp-mcp-"));
  const cwd = opts.cwd ?? dir;
  const given = opts.env ?? {};
  const pathOf = (name: string, fallback: string): string => {
    const value = given[name];
    if (value === undefined || value === "") return fallback;
    return isAbsolute(value) ? value : resolve(cwd, value);
  };
  const paths = {
    audit: pathOf("OSBP_AUDIT_LOG_PATH", join(dir, "audit", "events.jsonl")),
    idempotency: pathOf("OSBP_IDEMPOTENCY_PATH", join(dir, "idempotency.json")),
    messages: pathOf("SYNTHETIC_MESSAGE_LOG", join(dir, "messages.jsonl")),
  };

  // The SDK passes only a safe default environment (HOME, PATH, ...) plus `env`, so the
  // parent's REDIS_URL never leaks into the child.
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [...cli, "mcp", "--host", opts.host, ...(opts.args ?? [])],
    cwd,
    env: {
      // The tests' upstream fakes listen on loopback: the operator's explicit allowance
      // (src/protocol/net/policy.ts); a test may set it otherwise in opts.env.
      UPSTREAM_ALLOW_PRIVATE: "1",
      ...given,
      OSBP_AUDIT_LOG_PATH: paths.audit,
      OSBP_IDEMPOTENCY_PATH: paths.idempotency,
      SYNTHETIC_MESSAGE_LOG: paths.messages,
    },
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));

  const client = new Client({ name: "osbp-test-agent", version: "0.0.0" });
  try {
    await client.connect(transport);
  } catch (e) {
    await transport.close().catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
    throw new Error(`booking-gateway mcp did not start: ${(e as Error).message}\n${stderr}`, { cause: e });
  }
  const pid = transport.pid;

  let closing: Promise<void> | undefined;
  return {
    client,
    paths,
    pid,
    async call(tool, args) {
      const r = await client.callTool({ name: tool, arguments: args as Record<string, unknown> });
      const first = (r.content as Array<{ type: string; text?: string }>)[0];
      return {
        envelope: r.structuredContent as ToolResult<unknown>,
        isError: r.isError === true,
        text: first?.type === "text" ? (first.text ?? "") : "",
      };
    },
    stderr: () => stderr,
    close: () =>
      (closing ??= (async () => {
        await client.close();
        await rm(dir, { recursive: true, force: true });
      })()),
  };
}
