/**
 * OSBP service discovery over real stdio: an agent connected to a host with several services
 * and no default service (the first embedded host, Maple Street Auto) learns the bookable
 * service ids from what it reads before its first call, the MCP server instructions and
 * osbp_service_describe's description, and describes one of them. The test knows nothing of
 * the host's ids except what the server says; the platform's catalog is the cross-check.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SYNTHETIC_SCENARIOS } from "../../../../src/connectors/synthetic/index.js";
import { TOOL_INPUT_SCHEMAS, type Problem, type Service } from "../../../../src/protocol/osbp/index.js";
import { startMcpServer, type McpSession } from "../../../support/mcp.js";

const SPAWN_MS = 60_000;
const HOST = "maple-street-auto";

let session: McpSession;

beforeAll(async () => {
  session = await startMcpServer({ host: HOST });
}, SPAWN_MS);

afterAll(async () => {
  await session?.close();
});

/** The service ids a listing names, in order: lines `- service_id "<id>": …`. */
function listedIds(text: string): string[] {
  return [...text.matchAll(/^- service_id ("(?:[^"\\]|\\.)*"):/gm)].map((m) => JSON.parse(m[1]!) as string);
}

describe(
  "OSBP service discovery on a host with several services and no default",
  { timeout: SPAWN_MS },
  () => {
    it("the server instructions name every service with its name, duration and price", () => {
      const instructions = session.client.getInstructions() ?? "";
      const ids = listedIds(instructions);
      const platform = SYNTHETIC_SCENARIOS[HOST]!.services;
      expect(platform.length).toBeGreaterThan(1);
      expect(ids).toEqual(platform.map((s) => s.id));
      for (const s of platform) {
        const line = instructions
          .split("\n")
          .find((l) => l.startsWith(`- service_id ${JSON.stringify(s.id)}:`));
        expect(line, s.id).toContain(JSON.stringify(s.name));
        if (s.duration !== "open") expect(line, s.id).toMatch(/, PT\d+[HM]/);
        if (s.price !== undefined) expect(line, s.id).toContain(s.price.currency);
      }
    });

    it("osbp_service_describe's description names the same services; its input schema is unchanged", async () => {
      const { tools } = await session.client.listTools();
      const describeTool = tools.find((t) => t.name === "osbp_service_describe");
      expect(listedIds(describeTool?.description ?? "")).toEqual(
        listedIds(session.client.getInstructions() ?? ""),
      );
      expect(describeTool?.inputSchema).toEqual(TOOL_INPUT_SCHEMAS["service.describe"]);
    });

    it("service.describe answers for a listed id; without one, service_required lists the ids", async () => {
      const ids = listedIds(session.client.getInstructions() ?? "");
      const id = ids[1]!;
      const described = await session.call("osbp_service_describe", { service_id: id });
      expect(described.isError).toBe(false);
      const service = (described.envelope as { value: Service }).value;
      expect(service.id).toBe(id);
      expect(session.client.getInstructions()).toContain(JSON.stringify(service.name));

      const bare = await session.call("osbp_service_describe", {});
      expect(bare.isError).toBe(true);
      const problem = (bare.envelope as { problem: Problem }).problem;
      expect(problem.code).toBe("service_required");
      for (const listed of ids) expect(problem.message).toContain(JSON.stringify(listed));
      expect(Object.keys(problem).sort()).toEqual(["code", "message", "retryable"]);
    });
  },
);
