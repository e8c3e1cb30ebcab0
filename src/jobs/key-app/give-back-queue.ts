/**
 * Giving a claimed unit back to a key app that did not answer (SchCP §3.3: "A key app that
 * does not answer never stops the cancel: the endpoint SHOULD retry for a day and then leave
 * the claim held, so the principal has one booking fewer left, never one more").
 *
 * One job per claim (job id from the status URL and claim id, so the same give-back is queued
 * once), retried with the webhooks' bounded policy: 8 attempts over about a day. The embedded
 * default runs it in process; with Redis it is BullMQ queue "claim-give-back", so the retries
 * survive a restart and any gateway process may run them. After the last attempt the claim is
 * left held, and logged.
 */
import { createHash } from "node:crypto";
import { Queue, Worker } from "bullmq";
import type { Job } from "bullmq";
import type { RedisOptions } from "ioredis";
import { openRedis, type RedisClient } from "../../redis/client.js";
import type { Logger } from "../../protocol/logger.js";
import { consoleJobLogger, describeError } from "../logger.js";
import { realScheduler, type Scheduler } from "../scheduler.js";
import { DEFAULT_WEBHOOK_RETRY, type RetryPolicy } from "../webhooks/retry-policy.js";
import { bullmqJobCounts, type JobCounts } from "../job-counts.js";

export const GIVE_BACK_QUEUE = "claim-give-back";

export interface GiveBackJob {
  readonly hostId: string;
  /** The mandate link's status URL (§3.3). */
  readonly statusUrl: string;
  /** "{host id}/{hold id}". */
  readonly claimId: string;
}

/** One attempt: true when the key app took the unit back. */
export type GiveBackAttempt = (job: GiveBackJob) => Promise<boolean>;

export interface GiveBackQueue {
  /** Queues the retries of a give-back; never rejects (a failure is logged: the unit stays held). */
  enqueue(job: GiveBackJob): Promise<void>;
  jobCounts(): Promise<JobCounts>;
  close(): Promise<void>;
}

/** The job id: the same claim at the same key app is one job, whoever queues it. */
function giveBackJobId(job: GiveBackJob): string {
  return `gb-${createHash("sha256").update(`${job.statusUrl}\n${job.claimId}`).digest("hex").slice(0, 40)}`;
}

const keptHeld = (logger: Logger, job: GiveBackJob, attempts: number): void =>
  logger.error("shared booking limit: the key app never took the unit back; it stays held (§3.3)", {
    host_id: job.hostId,
    claim_id: job.claimId,
    key_app: originOf(job.statusUrl),
    attempts,
  });

/** The key app's origin, for logs: a status URL's path names the mandate. */
function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return "(invalid url)";
  }
}

export interface MemoryGiveBackQueueOptions {
  readonly attempt: GiveBackAttempt;
  readonly policy?: RetryPolicy;
  readonly scheduler?: Scheduler;
  readonly logger?: Logger;
}

/** In process (the embedded default): timers on an injected Scheduler; nothing outlives the process. */
export class MemoryGiveBackQueue implements GiveBackQueue {
  readonly #pending = new Map<string, { job: GiveBackJob; attempts: number; timer?: unknown }>();
  readonly #policy: RetryPolicy;
  readonly #scheduler: Scheduler;
  readonly #logger: Logger;
  #closed = false;

  constructor(private readonly options: MemoryGiveBackQueueOptions) {
    this.#policy = options.policy ?? DEFAULT_WEBHOOK_RETRY;
    this.#scheduler = options.scheduler ?? realScheduler;
    this.#logger = options.logger ?? consoleJobLogger;
  }

  enqueue(job: GiveBackJob): Promise<void> {
    const id = giveBackJobId(job);
    if (this.#closed || this.#pending.has(id)) return Promise.resolve();
    // The caller's own attempt was the first: the next waits the policy's first delay.
    const entry = { job, attempts: 1 } as { job: GiveBackJob; attempts: number; timer?: unknown };
    this.#pending.set(id, entry);
    this.#schedule(id, entry);
    return Promise.resolve();
  }

  get size(): number {
    return this.#pending.size;
  }

  jobCounts(): Promise<JobCounts> {
    return Promise.resolve({ delayed: this.#pending.size });
  }

  close(): Promise<void> {
    this.#closed = true;
    for (const entry of this.#pending.values()) {
      if (entry.timer !== undefined) this.#scheduler.clear(entry.timer);
      keptHeld(this.#logger, entry.job, entry.attempts);
    }
    this.#pending.clear();
    return Promise.resolve();
  }

  #schedule(id: string, entry: { job: GiveBackJob; attempts: number; timer?: unknown }): void {
    if (entry.attempts >= this.#policy.maxAttempts) {
      this.#pending.delete(id);
      keptHeld(this.#logger, entry.job, entry.attempts);
      return;
    }
    entry.timer = this.#scheduler.set(() => {
      entry.timer = undefined;
      void this.#run(id, entry);
    }, this.#policy.delayAfter(entry.attempts));
  }

  async #run(id: string, entry: { job: GiveBackJob; attempts: number; timer?: unknown }): Promise<void> {
    entry.attempts++;
    let done = false;
    try {
      done = await this.options.attempt(entry.job);
    } catch {
      done = false;
    }
    if (this.#closed) return;
    if (done) this.#pending.delete(id);
    else this.#schedule(id, entry);
  }
}

export interface BullmqGiveBackQueueOptions {
  readonly redisUrl: string;
  readonly redisOptions?: RedisOptions;
  /** BullMQ's prefix: the gateway's, under REDIS_KEY_PREFIX (one Cluster slot). */
  readonly prefix: string;
  readonly attempt: GiveBackAttempt;
  readonly policy?: RetryPolicy;
  readonly logger?: Logger;
  /** Run a worker in this process (default true). */
  readonly worker?: boolean;
}

/** Redis mode: BullMQ queue "claim-give-back"; a restart loses no queued give-back. */
export class BullmqGiveBackQueue implements GiveBackQueue {
  readonly #producer: RedisClient;
  readonly #consumer?: RedisClient;
  readonly #queue: Queue<GiveBackJob>;
  readonly #worker?: Worker<GiveBackJob>;
  readonly #policy: RetryPolicy;
  readonly #logger: Logger;
  #closed = false;

  constructor(private readonly options: BullmqGiveBackQueueOptions) {
    this.#policy = options.policy ?? DEFAULT_WEBHOOK_RETRY;
    this.#logger = options.logger ?? consoleJobLogger;
    const onError = (error: Error): void =>
      this.#logger.error("claim give-back queue error", { error: error.message });
    this.#producer = openRedis(options.redisUrl, {
      redisOptions: { maxRetriesPerRequest: 1, commandTimeout: 5_000, ...options.redisOptions },
    });
    this.#producer.on("error", onError);
    this.#queue = new Queue<GiveBackJob>(GIVE_BACK_QUEUE, {
      connection: this.#producer,
      prefix: options.prefix,
    });
    this.#queue.on("error", onError);
    if (options.worker === false) return;
    this.#consumer = openRedis(options.redisUrl, {
      redisOptions: { maxRetriesPerRequest: null, ...options.redisOptions },
    });
    this.#consumer.on("error", onError);
    this.#worker = new Worker<GiveBackJob>(GIVE_BACK_QUEUE, (job) => this.#process(job), {
      connection: this.#consumer,
      prefix: options.prefix,
      concurrency: 4,
      // attemptsMade counts BullMQ's attempts; the caller's own attempt came first.
      settings: { backoffStrategy: (attemptsMade: number) => this.#policy.delayAfter(attemptsMade + 1) },
    });
    this.#worker.on("error", onError);
  }

  async enqueue(job: GiveBackJob): Promise<void> {
    if (this.#closed) return;
    try {
      await this.#queue.add("give-back", job, {
        jobId: giveBackJobId(job),
        // The caller's own attempt was the first of the policy's.
        delay: this.#policy.delayAfter(1),
        attempts: Math.max(1, this.#policy.maxAttempts - 1),
        backoff: { type: "custom" },
        removeOnComplete: { age: 86_400 },
        removeOnFail: { age: 7 * 86_400 },
      });
    } catch (error) {
      this.#logger.error("claim give-back could not be queued; the unit stays held (§3.3)", {
        host_id: job.hostId,
        claim_id: job.claimId,
        error: describeError(error),
      });
    }
  }

  jobCounts(): Promise<JobCounts> {
    return bullmqJobCounts(this.#queue);
  }

  get bullQueue(): Queue<GiveBackJob> {
    return this.#queue;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#worker?.close();
    await this.#queue.close();
    const clients = this.#consumer === undefined ? [this.#producer] : [this.#producer, this.#consumer];
    await Promise.all(clients.map((c) => c.quit().catch(() => c.disconnect())));
  }

  async #process(job: Job<GiveBackJob>): Promise<void> {
    let done = false;
    try {
      done = await this.options.attempt(job.data);
    } catch {
      done = false;
    }
    if (done) return;
    const attempts = job.attemptsMade + 2;
    if (attempts >= this.#policy.maxAttempts) keptHeld(this.#logger, job.data, attempts);
    throw new Error("the key app did not take the unit back");
  }
}
