/**
 * Durable delivery of host messages when the gateway has Redis: BullMQ queue
 * "host-messages", one job per message key (job id derived from the key), so a key is
 * delivered once however many processes send it, and a message not yet delivered survives a
 * restart: any process's worker takes it up. Same schedule and log lines as the in-process
 * messenger (deliver.ts): 6 attempts, 1 s base, exponential; "host message sent",
 * "host message failed; retrying", "host message abandoned".
 *
 * The job data is the message itself, and an approval message's text carries the approval
 * link: a bearer capability (whoever holds it may approve or decline the booking). So Redis
 * holds the text only while it is needed to deliver it:
 * - on success, and on the attempt that abandons it, the worker strips the text and html from
 *   the job before BullMQ finishes it: what stays (key, host, recipient, subject) serves
 *   de-duplication and operators, and names no link;
 * - removeOnFail and removeOnComplete bound even that: no longer than the link's own expiry
 *   (`expiresAt`) for a failed job — a backstop for a job that failed without the worker's
 *   stripping, e.g. one that stalled too often — and `keepSentMs` for a sent one's key;
 * - a message whose link has already expired when a worker takes it (a process restarted
 *   long after) is abandoned, not sent.
 * BullMQ removes aged jobs lazily (when a later job of the queue finishes), hence the
 * stripping rather than the ages alone.
 *
 * At-least-once, as any queue: a process that dies after its transport accepted a message and
 * before BullMQ recorded it leaves the job to be retried (a second copy of the same link).
 */
import { createHash } from "node:crypto";
import { Queue, UnrecoverableError, Worker, type Job } from "bullmq";
import type { RedisOptions } from "ioredis";
import { openRedis, type RedisClient } from "../../redis/client.js";
import { describeError } from "../logger.js";
import { systemClock, type Clock } from "../../protocol/clock.js";
import type { Logger } from "../../protocol/logger.js";
import { createHostMessenger, type HostMessenger } from "./deliver.js";
import type { HostMessage, MessageTransport } from "./message.js";
import { bullmqJobCounts } from "../job-counts.js";

export const HOST_MESSAGE_QUEUE = "host-messages";

export interface BullmqMessengerOptions {
  readonly redisUrl: string;
  /** Passed to ioredis last (TLS, username, …). */
  readonly redisOptions?: RedisOptions;
  /** BullMQ key prefix; braces keep a queue's keys in one Redis Cluster slot, e.g. "schcp:{schcp:bullmq}". */
  readonly prefix: string;
  readonly transports: readonly MessageTransport[];
  readonly logger: Logger;
  /** Attempts per message (default 6: about 1, 2, 4, 8, 16 s apart). */
  readonly maxAttempts?: number;
  readonly baseDelayMs?: number;
  /** Run a worker in this process (default true); false only enqueues. */
  readonly worker?: boolean;
  /** Messages in flight at once in this process (default 4). */
  readonly concurrency?: number;
  /** How long a sent message's key (not its text) is kept, so a repeat is not sent (default 24 h). */
  readonly keepSentMs?: number;
  /** How long a failed message without `expiresAt` is kept (default 24 h). */
  readonly keepFailedMs?: number;
  /** The clock the messages' `expiresAt` is on (default systemClock). */
  readonly clock?: Clock;
}

export interface DurableHostMessenger extends HostMessenger {
  /** The queue itself, for tests and operator tooling. */
  readonly queue: Queue<HostMessage>;
}

const DAY_MS = 86_400_000;

/** BullMQ job ids may not contain ":" nor be integers; message keys do contain ":". */
export function hostMessageJobId(key: string): string {
  return `hm-${createHash("sha256").update(key).digest("base64url")}`;
}

/** The job as it stays in Redis once finished: no text, so no approval link. */
function stripped(m: HostMessage): HostMessage {
  const { html: _html, ...rest } = m;
  return { ...rest, text: "" };
}

const UNFINISHED = new Set(["waiting", "active", "delayed", "prioritized", "waiting-children"]);

export function createBullmqHostMessenger(options: BullmqMessengerOptions): DurableHostMessenger {
  const { logger } = options;
  const clock = options.clock ?? systemClock;
  const maxAttempts = options.maxAttempts ?? 6;
  const base = options.baseDelayMs ?? 1_000;
  const onError = (e: Error) => logger.error("host message queue error", { error: e.message });
  // The producer fails fast (send falls back to in-process delivery); the worker's blocking
  // connection must retry forever (BullMQ requires maxRetriesPerRequest: null there).
  const producer = openRedis(options.redisUrl, {
    redisOptions: { maxRetriesPerRequest: 1, commandTimeout: 5_000, ...options.redisOptions },
  });
  producer.on("error", onError);
  const queue = new Queue<HostMessage>(HOST_MESSAGE_QUEUE, { connection: producer, prefix: options.prefix });
  queue.on("error", onError);

  // When Redis cannot take a message, this process still tries to deliver it: twice beats never.
  const fallback = createHostMessenger({
    transports: options.transports,
    logger,
    maxAttempts,
    baseDelayMs: base,
  });

  async function process(job: Job<HostMessage>): Promise<void> {
    const m = job.data;
    const attempt = job.attemptsMade + 1;
    const last = attempt >= (job.opts.attempts ?? 1);
    const fields = { host_id: m.hostId, key: m.key };
    const abandon = async (error: string): Promise<never> => {
      await strip(job);
      throw new UnrecoverableError(error);
    };
    if (m.expiresAt !== undefined && clock.now() >= m.expiresAt) {
      logger.error("host message abandoned", {
        ...fields,
        attempt,
        error: "its link expired before delivery",
      });
      return abandon("expired");
    }
    const transport = options.transports.find((t) => t.accepts(m));
    if (transport === undefined) {
      logger.error("host message has no transport that can reach its recipient", fields);
      return abandon("no transport");
    }
    try {
      await transport.send(m);
    } catch (error) {
      logger[last ? "error" : "warn"](last ? "host message abandoned" : "host message failed; retrying", {
        ...fields,
        transport: transport.name,
        attempt,
        error: describeError(error),
      });
      if (last) await strip(job);
      throw error instanceof Error ? error : new Error(describeError(error));
    }
    logger.info("host message sent", { ...fields, transport: transport.name, attempt });
    await strip(job);
  }

  /** Never throws: the message is delivered (or abandoned) whether or not the text could be dropped. */
  async function strip(job: Job<HostMessage>): Promise<void> {
    await job.updateData(stripped(job.data)).catch((e: unknown) =>
      logger.warn("host message text not removed from Redis; it goes with the job", {
        key: job.data.key,
        error: describeError(e),
      }),
    );
  }

  let consumer: RedisClient | undefined;
  let worker: Worker<HostMessage> | undefined;
  if (options.worker !== false) {
    consumer = openRedis(options.redisUrl, {
      redisOptions: { maxRetriesPerRequest: null, ...options.redisOptions },
    });
    consumer.on("error", onError);
    worker = new Worker<HostMessage>(HOST_MESSAGE_QUEUE, process, {
      connection: consumer,
      prefix: options.prefix,
      concurrency: options.concurrency ?? 4,
    });
    worker.on("error", onError);
  }

  /** Job ids this messenger sent (idle() waits for them) and adds not yet answered. */
  const mine = new Set<string>();
  const adding = new Set<Promise<void>>();
  let closed = false;

  async function enqueue(m: HostMessage): Promise<void> {
    const jobId = hostMessageJobId(m.key);
    const failedKeepMs =
      m.expiresAt === undefined
        ? (options.keepFailedMs ?? DAY_MS)
        : Math.max(1_000, m.expiresAt - clock.now());
    try {
      // The text (an approval link, a bearer capability) is stored only until this job
      // finishes: see the file comment. An add with an existing job id adds nothing.
      await queue.add("send", m, {
        jobId,
        attempts: maxAttempts,
        backoff: { type: "exponential", delay: base },
        removeOnComplete: { age: Math.ceil((options.keepSentMs ?? DAY_MS) / 1000) },
        removeOnFail: { age: Math.ceil(failedKeepMs / 1000) },
        stackTraceLimit: 0,
      });
      mine.add(jobId);
    } catch (error) {
      logger.warn("host message could not be queued; delivering it from this process", {
        host_id: m.hostId,
        key: m.key,
        error: describeError(error),
      });
      fallback.send(m);
    }
  }

  return {
    queue,
    jobCounts: () => bullmqJobCounts(queue),
    send(m) {
      if (closed) {
        logger.error("host message sent after the messenger closed; dropped", {
          host_id: m.hostId,
          key: m.key,
        });
        return;
      }
      const p = enqueue(m).finally(() => adding.delete(p));
      adding.add(p);
    },
    async idle() {
      while (adding.size > 0) await Promise.all([...adding]);
      while (mine.size > 0) {
        for (const id of [...mine]) {
          const state = await queue.getJobState(id);
          if (!UNFINISHED.has(state)) mine.delete(id);
        }
        if (mine.size > 0) await new Promise((r) => setTimeout(r, 20));
      }
      await fallback.idle();
    },
    async close() {
      if (closed) return;
      closed = true;
      while (adding.size > 0) await Promise.all([...adding]);
      // The worker finishes the deliveries in flight; jobs not yet due stay in Redis for the
      // next process to deliver.
      await worker?.close();
      await queue.close();
      const clients = consumer === undefined ? [producer] : [producer, consumer];
      await Promise.all(
        clients.map((c) =>
          c.quit().then(
            () => undefined,
            () => c.disconnect(),
          ),
        ),
      );
    },
  };
}
