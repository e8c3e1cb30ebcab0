/** The OSBP MCP edge: the transport-free tool dispatcher, the MCP server, and its stdio runner. */
export { createToolDispatcher, type ToolDispatcher, type ToolDispatcherOptions } from "./dispatch.js";
export {
  createOsbpMcpServer,
  DEFAULT_SERVER_NAME,
  OSBP_VERSION,
  osbpTools,
  type OsbpMcpServerOptions,
} from "./server.js";
export {
  runOsbpStdioServer,
  startOsbpStdioServer,
  type ListingAdapter,
  type OsbpStdioOptions,
  type RunningOsbpStdio,
} from "./stdio.js";
export {
  instructionsFor,
  MAX_LISTED_SERVICES,
  serviceLines,
  toolDescriptionsFor,
  type ServiceSummary,
} from "./service-catalog.js";
export { SERVER_INSTRUCTIONS, TOOL_DESCRIPTIONS } from "./tool-descriptions.js";
