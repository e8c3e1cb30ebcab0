/** Small runtime pieces: the system clock, random ids, and the JSON-lines logger. */
import type { Clock, IdGenerator } from "../../booking/api.js";
import type { Logger } from "../http/types.js";
import { randomToken } from "../../protocol/random.js";

export const systemClock: Clock = { now: () => Date.now() };

/** "h_" + 128 random bits in base64url: unguessable, so an id alone grants nothing to find. */
export const randomIds: IdGenerator = {
  next: (prefix) => `${prefix}${randomToken(16)}`,
};

function line(level: string, message: string, fields?: Readonly<Record<string, unknown>>): string {
  return JSON.stringify({ level, at: new Date().toISOString(), msg: message, ...fields });
}

/** One JSON object per line on stderr (stdout is the CLI's own output). */
export function jsonLinesLogger(
  write: (line: string) => void = (l) => process.stderr.write(`${l}\n`),
): Logger {
  return {
    info: (m, f) => write(line("info", m, f)),
    warn: (m, f) => write(line("warn", m, f)),
    error: (m, f) => write(line("error", m, f)),
  };
}

export const silentLogger: Logger = { info: () => {}, warn: () => {}, error: () => {} };
