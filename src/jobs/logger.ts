/**
 * What the jobs layer tells operators: failed webhook attempts, abandoned deliveries, runs
 * of the periodic workers that threw. A small port so the gateway can route it to its own
 * logger; the default writes one JSON line per entry to stderr.
 */
export type LogFields = Readonly<Record<string, unknown>>;

export interface JobLogger {
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
}

function line(level: string, message: string, fields?: LogFields): string {
  return JSON.stringify({ level, at: new Date().toISOString(), msg: message, ...fields });
}

export const consoleJobLogger: JobLogger = {
  info: (message, fields) => console.error(line("info", message, fields)),
  warn: (message, fields) => console.error(line("warn", message, fields)),
  error: (message, fields) => console.error(line("error", message, fields)),
};

export const silentJobLogger: JobLogger = { info: () => {}, warn: () => {}, error: () => {} };

/** An error's message for a log line, whatever was thrown. */
export function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
