/**
 * What the jobs layer tells operators: failed webhook attempts, abandoned deliveries, runs
 * of the periodic workers that threw. The jobs take the gateway's Logger (src/protocol/logger.ts)
 * so it can route them to its own; the default writes one JSON line per entry to stderr.
 */
import type { LogFields, Logger } from "../protocol/logger.js";

function line(level: string, message: string, fields?: LogFields): string {
  return JSON.stringify({ level, at: new Date().toISOString(), msg: message, ...fields });
}

export const consoleJobLogger: Logger = {
  info: (message, fields) => console.error(line("info", message, fields)),
  warn: (message, fields) => console.error(line("warn", message, fields)),
  error: (message, fields) => console.error(line("error", message, fields)),
};

/** An error's message for a log line, whatever was thrown. */
export function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
