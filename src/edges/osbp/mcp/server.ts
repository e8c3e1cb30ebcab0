/**
 * The OSBP tools as an MCP server (OSBP "Transport", "Naming"): tools/list announces the eight
 * flattened names with the spec's input schemas verbatim, and tools/call answers with the
 * Result Envelope as compact JSON text plus the same object as structured content.
 *
 * Built on the SDK's low-level Server, not McpServer.registerTool: the latter derives input
 * schemas from zod, and OSBP wants its own JSON Schemas announced exactly.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type CallToolResult,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import {
  MCP_TOOL_NAMES,
  TOOL_INPUT_SCHEMAS,
  TOOL_NAMES,
  toolNameFromMcp,
} from "../../../protocol/osbp/index.js";
import type { ToolDispatcher } from "./dispatch.js";
import { instructionsFor, toolDescriptionsFor, type ServiceSummary } from "./service-catalog.js";

export const OSBP_VERSION = "0.1.0";
const DEFAULT_SERVER_NAME = "booking-gateway-osbp";

export interface OsbpMcpServerOptions {
  readonly dispatcher: ToolDispatcher;
  /** serverInfo.name (default "booking-gateway-osbp"). */
  readonly name?: string;
  /** serverInfo.version (default the OSBP version served). */
  readonly version?: string;
  /**
   * The host's services, named in the instructions and in osbp_service_describe's description
   * (service-catalog.ts); without them both say how to find the default service.
   */
  readonly services?: readonly ServiceSummary[];
}

/** The tools/list answer; the schemas are the spec's objects themselves, not copies. */
function osbpTools(services?: readonly ServiceSummary[]): Tool[] {
  const descriptions = toolDescriptionsFor(services);
  return TOOL_NAMES.map((name) => ({
    name: MCP_TOOL_NAMES[name],
    title: name,
    description: descriptions[name],
    inputSchema: TOOL_INPUT_SCHEMAS[name] as Tool["inputSchema"],
  }));
}

export function createOsbpMcpServer(opts: OsbpMcpServerOptions): Server {
  const server = new Server(
    { name: opts.name ?? DEFAULT_SERVER_NAME, version: opts.version ?? OSBP_VERSION },
    { capabilities: { tools: {} }, instructions: instructionsFor(opts.services) },
  );
  const tools = osbpTools(opts.services);

  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }));

  // A non-object `arguments` never arrives here: the SDK rejects it as InvalidParams first,
  // because MCP itself defines arguments as an object. Everything inside the object is ours.
  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    const { name, arguments: args } = request.params;
    const tool = toolNameFromMcp(name);
    if (tool === undefined) {
      // Not finding the tool is a protocol error, not a tool result (MCP "tools/call").
      throw new McpError(
        ErrorCode.InvalidParams,
        `Unknown tool "${name}"; this server has ${tools.map((t) => t.name).join(", ")}`,
      );
    }
    // Clients omit `arguments` for a call without any; the schema then judges {}.
    const envelope = await opts.dispatcher.call(tool, args ?? {});
    return {
      content: [{ type: "text", text: JSON.stringify(envelope) }],
      structuredContent: envelope as unknown as Record<string, unknown>,
      isError: !envelope.ok,
    };
  });

  return server;
}
