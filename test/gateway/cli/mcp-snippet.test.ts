/**
 * README "MCP client": the mcpServers snippet, taken from the README itself with its
 * placeholders filled, started as an MCP client would start it (the official SDK client over
 * stdio), lists the eight OSBP tools. The checkout is built first, as the snippet says
 * (`npm run build`, once for the run: test/support/gateway-cli.ts).
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

async function readmeSnippet(): Promise<ServerEntry> {
  const readme = await readFile(join(REPO, "README.md"), "utf8");
  const section = readme.slice(readme.indexOf("### MCP client"));
  const block = /```json\n([\s\S]*?)\n```/.exec(section)?.[1];
  if (block === undefined) throw new Error("README has no MCP client snippet");
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
  "the README's mcpServers snippet starts over stdio and lists the OSBP tools",
  { timeout: 60_000 },
  async () => {
    // npm run build stamped dist/ with the sources it was built from: bin runs dist/.
    expect(chooseEntry(REPO, { tsx: false })).toEqual({ run: "dist" });
    const entry = await readmeSnippet();
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
