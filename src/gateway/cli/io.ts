/**
 * What a command reads and writes: the environment, its output lines, the working directory and
 * the MCP transport. Every command takes it from runCli (cli.ts), and tests hand in their own.
 */
import type { Readable, Writable } from "node:stream";

export interface CliIo {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly out: (line: string) => void;
  readonly err: (line: string) => void;
  /** Base for relative paths (--config, GATEWAY_DATA_DIR); default process.cwd(). */
  readonly cwd?: string;
  /** The MCP transport of `mcp`; default process.stdin and process.stdout. */
  readonly stdin?: Readable;
  readonly stdout?: Writable;
}
