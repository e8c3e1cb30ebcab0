/**
 * The one logger interface of the gateway: structured operator lines, a message and optional
 * fields, never secrets or request bodies. Every layer may import it (src/protocol is a leaf:
 * docs/ARCHITECTURE.md, Layers); the writers stay with their owners (the runtime's JSON lines
 * in gateway/runtime/support.ts, the jobs' default in jobs/logger.ts, the connectors' default
 * in connectors/http/notices.ts), since each keeps its own line format.
 *
 * A consumer that calls only some methods takes `Pick<Logger, …>` of them, so a caller may
 * hand in any Logger or a narrower fake.
 */
export type LogFields = Readonly<Record<string, unknown>>;

export interface Logger {
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
}

/** Drops every line (tests, and callers that report elsewhere). */
export const silentLogger: Logger = { info: () => {}, warn: () => {}, error: () => {} };
