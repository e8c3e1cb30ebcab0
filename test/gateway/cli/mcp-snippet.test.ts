/**
 * The MCP client snippets of the docs, started as an MCP client would start them (the official
 * SDK client over stdio):
 *
 * - docs/mcp.md "MCP client": the mcpServers snippet, its placeholders filled, lists the eight
 *   OSBP tools. The checkout is built first, as the snippet says (`npm run build`, once for the
 *   run: test/support/gateway-cli.ts).
 * - README.md's OSBP example: the mcp.json it writes, in the checkout, answers the tool call its
 *   MCP Inspector command line makes (`--tool-name`, `--tool-arg key=value`).
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, expect, it } from "vitest";
import { gatewayBuilt } from "../../support/gateway-cli.js";
import { chooseEntry } from "../../../bin/build-stamp.js";

const REPO = resolve(import.meta.dirname, "../../..");
let dir: string;
beforeAll(async () => {
  await gatewayBuilt();
  dir = await mkdtemp(join(tmpdir(), "gw-mcp-snippet-"));
}, 300_000);
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

interface ServerEntry {
  command: string;
  args: string[];
  env: Record<string, string>;
}

async function docsSnippet(): Promise<ServerEntry> {
  const page = await readFile(join(REPO, "docs/mcp.md"), "utf8");
  const section = page.slice(page.indexOf("## MCP client"));
  const block = /```json\n([\s\S]*?)\n```/.exec(section)?.[1];
  if (block === undefined) throw new Error("docs/mcp.md has no MCP client snippet");
  const fill = (s: string) => s.replaceAll("<checkout>", REPO).replaceAll("<data dir>", dir);
  const entry = (JSON.parse(block) as { mcpServers: Record<string, ServerEntry> }).mcpServers[
    "booking-gateway"
  ]!;
  return {
    command: entry.command,
    args: entry.args.map(fill),
    env: Object.fromEntries(Object.entries(entry.env).map(([k, v]) => [k, fill(v)])),
  };
}

it(
  "docs/mcp.md's mcpServers snippet starts over stdio and lists the OSBP tools",
  { timeout: 60_000 },
  async () => {
    // npm run build stamped dist/ with the sources it was built from: bin runs dist/.
    expect(chooseEntry(REPO, { tsx: false })).toEqual({ run: "dist" });
    const entry = await docsSnippet();
    expect(entry.command).toBe("node");
    // The client starts it without a working directory of ours: cwd is the temp dir.
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: entry.args,
      env: entry.env,
      cwd: dir,
      stderr: "pipe",
    });
    const client = new Client({ name: "snippet-test", version: "0" });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toHaveLength(8);
      expect(tools.every((t) => t.name.startsWith("osbp_"))).toBe(true);
    } finally {
      await client.close();
    }
  },
);

/** The README's OSBP example: the mcp.json its heredoc writes, and its Inspector tool call. */
async function readmeInspectorCall(): Promise<{
  entry: { command: string; args: string[] };
  tool: string;
  args: Record<string, string>;
}> {
  const readme = await readFile(join(REPO, "README.md"), "utf8");
  const json = /cat > mcp\.json <<'EOF'\n([\s\S]*?)\nEOF\n/.exec(readme)?.[1];
  if (json === undefined) throw new Error("README has no mcp.json heredoc");
  const entry = (JSON.parse(json) as { mcpServers: Record<string, { command: string; args: string[] }> })
    .mcpServers["booking-gateway"]!;
  const call = /--config mcp\.json --server booking-gateway \\\n(.*--method tools\/call.*)/.exec(readme)?.[1];
  if (call === undefined) throw new Error("README has no Inspector tools/call line");
  const tool = /--tool-name (\S+)/.exec(call)?.[1];
  if (tool === undefined) throw new Error("the tools/call line names no tool");
  const args = Object.fromEntries(
    [...call.matchAll(/--tool-arg (\S+?)=(\S+)/g)].map((m) => [m[1]!, m[2]!] as const),
  );
  return { entry, tool, args };
}

it(
  "the README's mcp.json answers the tool call of its MCP Inspector command line",
  { timeout: 60_000 },
  async () => {
    const { entry, tool, args } = await readmeInspectorCall();
    expect(entry.command).toBe("node");
    expect(args).toEqual({ service_id: "oil-change" });
    // In the checkout, as the README says, with the data and the audit log kept out of it.
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: entry.args,
      env: {
        GATEWAY_DATA_DIR: join(dir, "inspector-data"),
        OSBP_AUDIT_LOG_PATH: join(dir, "inspector-audit.jsonl"),
      },
      cwd: REPO,
      stderr: "pipe",
    });
    const client = new Client({ name: "readme-inspector-test", version: "0" });
    await client.connect(transport);
    try {
      const result = await client.callTool({ name: tool, arguments: args });
      expect(result.isError).toBe(false);
      expect(result.structuredContent).toMatchObject({
        ok: true,
        value: { id: "oil-change", name: "Oil change", duration: "PT45M" },
      });
    } finally {
      await client.close();
    }
  },
);
