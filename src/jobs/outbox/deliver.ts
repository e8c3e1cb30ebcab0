/**
 * Delivery of host messages: the first transport that accepts the recipient sends it, with
 * bounded exponential retries when its peer fails; a message key is delivered once per
 * process. `send` queues and returns, so a booking never waits on a mail server; `idle()`
 * resolves when the queue is empty (tests, shutdown). Nothing survives the process: a message
 * still being retried at exit is lost, and each process de-duplicates only its own keys — the
 * gateway uses the BullMQ messenger (bullmq-messenger.ts) when it has Redis.
 */
import { describeError } from "../logger.js";
import type { Logger } from "../../protocol/logger.js";
import type { HostMessage, MessageTransport } from "./message.js";
import type { JobCounts } from "../job-counts.js";

export interface MessengerOptions {
  readonly transports: readonly MessageTransport[];
  readonly logger: Logger;
  /** Attempts per message (default 6: about 1, 2, 4, 8, 16 s apart). */
  readonly maxAttempts?: number;
  readonly baseDelayMs?: number;
  readonly sleep?: (ms: number) => Promise<void>;
}

export interface HostMessenger {
  send(message: HostMessage): void;
  /** Resolves when every message this messenger was given is sent or abandoned. */
  idle(): Promise<void>;
  /** Releases what the messenger holds (connections): at shutdown, after the last send. */
  close(): Promise<void>;
  /** The messages it holds, by state (metrics); absent when it keeps no queue to count. */
  jobCounts?(): Promise<JobCounts>;
}

export function createHostMessenger(options: MessengerOptions): HostMessenger {
  const maxAttempts = options.maxAttempts ?? 6;
  const base = options.baseDelayMs ?? 1_000;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms).unref()));
  const seen = new Set<string>();
  const running = new Set<Promise<void>>();

  async function deliver(m: HostMessage): Promise<void> {
    const transport = options.transports.find((t) => t.accepts(m));
    if (transport === undefined) {
      options.logger.error("host message has no transport that can reach its recipient", {
        host_id: m.hostId,
        key: m.key,
      });
      return;
    }
    for (let attempt = 1; attempt <= maxAttempts; attempt++) {
      try {
        await transport.send(m);
        options.logger.info("host message sent", {
          host_id: m.hostId,
          key: m.key,
          transport: transport.name,
          attempt,
        });
        return;
      } catch (error) {
        const last = attempt === maxAttempts;
        options.logger[last ? "error" : "warn"](
          last ? "host message abandoned" : "host message failed; retrying",
          {
            host_id: m.hostId,
            key: m.key,
            transport: transport.name,
            attempt,
            error: describeError(error),
          },
        );
        if (!last) await sleep(base * 2 ** (attempt - 1));
      }
    }
  }

  return {
    send(m) {
      if (seen.has(m.key)) return;
      seen.add(m.key);
      const p = deliver(m).finally(() => running.delete(p));
      running.add(p);
    },
    async idle() {
      while (running.size > 0) await Promise.all([...running]);
    },
    // Nothing to release; deliveries in flight run on (their timers do not hold the process).
    close: () => Promise.resolve(),
  };
}
