/**
 * The Redis-mode outbox: BullMQ queue "webhooks", one job per event with job id = event_id
 * (so an event is enqueued once however many processes or retries add it), retried with the
 * shared RetryPolicy through BullMQ's custom backoff. Every gateway process may run a worker;
 * BullMQ hands each job to one of them.
 */
import { Queue, UnrecoverableError, Worker } from "bullmq";
import type { Job } from "bullmq";
import type { RedisOptions } from "ioredis";
import { openRedis, type RedisClient } from "../../redis/client.js";
import { redisKeys } from "../../redis/keys.js";
import type { OutboundEvent } from "../../booking/api.js";
import { consoleJobLogger, describeError } from "../logger.js";
import type { Logger } from "../../protocol/logger.js";
import { afterFailedAttempt } from "./attempt-log.js";
import type { Deliver, DeliveryOutcome } from "./deliver.js";
import { checkOutboundEvent, jobIdFor } from "./event-check.js";
import { DEFAULT_WEBHOOK_RETRY } from "./retry-policy.js";
import type { RetryPolicy } from "./retry-policy.js";
import type { WebhookOutbox } from "./types.js";
import { bullmqJobCounts, type JobCounts } from "../job-counts.js";

export const WEBHOOK_QUEUE = "webhooks";
/**
 * The gateway's BullMQ prefix under the default REDIS_KEY_PREFIX (the runtime passes its own):
 * the braces make every key of the queue hash to one Redis Cluster slot, as BullMQ requires.
 */
const DEFAULT_BULLMQ_PREFIX = redisKeys().group("bullmq");

export interface BullmqOutboxOptions {
  readonly redisUrl: string;
  /** Passed to ioredis last (TLS, username, …). */
  readonly redisOptions?: RedisOptions;
  readonly prefix?: string;
  readonly deliver: Deliver;
  readonly policy?: RetryPolicy;
  readonly logger?: Logger;
  /** Run a worker in this process (default true); false only enqueues. */
  readonly worker?: boolean;
  /** Deliveries in flight at once in this process (default 8). */
  readonly concurrency?: number;
  /** How long a delivered job (and so its id) is kept: a repeat enqueue within it is ignored (default 24 h). */
  readonly keepCompletedMs?: number;
  /** How long an abandoned job is kept for operators to inspect (default 7 days). */
  readonly keepFailedMs?: number;
}

export class BullmqOutbox implements WebhookOutbox {
  private readonly producer: RedisClient;
  private readonly consumer?: RedisClient;
  private readonly queue: Queue<OutboundEvent>;
  private readonly worker?: Worker<OutboundEvent>;
  private readonly policy: RetryPolicy;
  private readonly logger: Logger;
  private closed = false;

  constructor(private readonly options: BullmqOutboxOptions) {
    this.policy = options.policy ?? DEFAULT_WEBHOOK_RETRY;
    this.logger = options.logger ?? consoleJobLogger;
    const prefix = options.prefix ?? DEFAULT_BULLMQ_PREFIX;
    const onError = (error: Error): void =>
      this.logger.error("webhook queue error", { error: error.message });
    // The producer fails fast (a caller is waiting); the worker's blocking connection must
    // retry forever (BullMQ requires maxRetriesPerRequest: null there).
    this.producer = openRedis(options.redisUrl, {
      redisOptions: { maxRetriesPerRequest: 1, commandTimeout: 5_000, ...options.redisOptions },
    });
    this.producer.on("error", onError);
    this.queue = new Queue<OutboundEvent>(WEBHOOK_QUEUE, { connection: this.producer, prefix });
    this.queue.on("error", onError);
    if (options.worker === false) return;
    this.consumer = openRedis(options.redisUrl, {
      redisOptions: { maxRetriesPerRequest: null, ...options.redisOptions },
    });
    this.consumer.on("error", onError);
    this.worker = new Worker<OutboundEvent>(WEBHOOK_QUEUE, (job) => this.process(job), {
      connection: this.consumer,
      prefix,
      concurrency: options.concurrency ?? 8,
      settings: { backoffStrategy: (attemptsMade: number) => this.policy.delayAfter(attemptsMade) },
    });
    this.worker.on("error", onError);
  }

  /** Never rejects: a refused event or an unreachable Redis is logged (see WebhookOutbox). */
  async enqueue(outbound: OutboundEvent): Promise<void> {
    const checked = checkOutboundEvent(outbound);
    if (!checked.ok) {
      this.logger.error("webhook event refused by the outbox", {
        host_id: outbound.hostId,
        ...checked.error,
      });
      return;
    }
    const eventId = checked.value.event_id;
    if (this.closed) {
      this.logger.error("webhook enqueued after the outbox closed; dropped", { event_id: eventId });
      return;
    }
    try {
      await this.queue.add("deliver", outbound, {
        jobId: jobIdFor(eventId),
        attempts: this.policy.maxAttempts,
        backoff: { type: "custom" },
        removeOnComplete: { age: Math.ceil((this.options.keepCompletedMs ?? 86_400_000) / 1000) },
        removeOnFail: { age: Math.ceil((this.options.keepFailedMs ?? 7 * 86_400_000) / 1000) },
      });
    } catch (error) {
      this.logger.error("webhook could not be queued; dropped", {
        event_id: eventId,
        host_id: outbound.hostId,
        error: describeError(error),
      });
    }
  }

  jobCounts(): Promise<JobCounts> {
    return bullmqJobCounts(this.queue);
  }

  /** The queue itself, for tests and operator tooling (counts, failed jobs). */
  get bullQueue(): Queue<OutboundEvent> {
    return this.queue;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // The worker first: it finishes the deliveries in flight; unfinished jobs stay in Redis.
    await this.worker?.close();
    await this.queue.close();
    const clients = this.consumer === undefined ? [this.producer] : [this.producer, this.consumer];
    await Promise.all(clients.map((c) => c.quit().catch(() => c.disconnect())));
  }

  private async process(job: Job<OutboundEvent>): Promise<void> {
    let outcome: DeliveryOutcome;
    try {
      outcome = await this.options.deliver(job.data);
    } catch (error) {
      outcome = {
        ok: false,
        error: { retryable: true, code: "network_error", message: describeError(error) },
      };
    }
    if (outcome.ok) return;
    const failure = outcome.error;
    const next = afterFailedAttempt(this.logger, this.policy, job.data, failure, job.attemptsMade + 1);
    // BullMQ retries a thrown Error until `attempts`; UnrecoverableError stops at once.
    if (!next.retry && !failure.retryable) throw new UnrecoverableError(failure.message);
    throw new Error(failure.message);
  }
}
