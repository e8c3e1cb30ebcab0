/** The OSBP MCP edge: the transport-free tool dispatcher, the MCP server, and its stdio runner. */
export { createToolDispatcher, type ToolDispatcher } from "./dispatch.js";
export { createOsbpMcpServer } from "./server.js";
export { startOsbpStdioServer, type ListingAdapter } from "./stdio.js";
export {
  instructionsFor,
  MAX_LISTED_SERVICES,
  serviceLines,
  type ServiceSummary,
} from "./service-catalog.js";
export { SERVER_INSTRUCTIONS, TOOL_DESCRIPTIONS } from "./tool-descriptions.js";
