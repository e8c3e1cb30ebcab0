/**
 * The operator channel of the MCP edge. Structurally the gateway's Logger, declared here so
 * the edge does not import the HTTP layer. On stdio it must write to stderr: stdout carries
 * nothing but MCP frames.
 */
export interface McpLogger {
  info(message: string, fields?: Readonly<Record<string, unknown>>): void;
  warn(message: string, fields?: Readonly<Record<string, unknown>>): void;
  error(message: string, fields?: Readonly<Record<string, unknown>>): void;
}
