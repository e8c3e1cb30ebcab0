/** Small runtime pieces: the system clock, random ids, and the JSON-lines logger. */
import type { IdGenerator } from "../../booking/api.js";
import type { LogFields, Logger } from "../../protocol/logger.js";
import { randomToken } from "../../protocol/random.js";

export { systemClock } from "../../protocol/clock.js";

/** "h_" + 128 random bits in base64url: unguessable, so an id alone grants nothing to find. */
export const randomIds: IdGenerator = {
  next: (prefix) => `${prefix}${randomToken(16)}`,
};

const RESERVED = new Set(["time", "level", "msg"]);

/**
 * One log record: `{"time","level","msg",...fields}`. A field may not replace the three fixed
 * members (it is kept as "field.<name>"), and an Error is written as its message, not `{}`.
 */
export function logLine(level: string, message: string, fields?: LogFields): string {
  const record: Record<string, unknown> = { time: new Date().toISOString(), level, msg: message };
  for (const [k, v] of Object.entries(fields ?? {})) {
    record[RESERVED.has(k) ? `field.${k}` : k] = v instanceof Error ? v.message : v;
  }
  return JSON.stringify(record);
}

/** One JSON object per line on stderr (stdout is the CLI's own output). */
export function jsonLinesLogger(
  write: (line: string) => void = (l) => process.stderr.write(`${l}\n`),
): Logger {
  return {
    info: (m, f) => write(logLine("info", m, f)),
    warn: (m, f) => write(logLine("warn", m, f)),
    error: (m, f) => write(logLine("error", m, f)),
  };
}
