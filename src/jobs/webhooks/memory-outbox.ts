/**
 * The embedded default's outbox: an in-process queue with the same retry policy as the
 * BullMQ one, on timers from an injected Scheduler. Nothing survives the process (the
 * embedded default keeps nothing else either). On close it drains: retries still waiting
 * get one last attempt at once, in-flight attempts are awaited, and whatever is still
 * undelivered is logged as dropped.
 */
import type { OutboundEvent } from "../../booking/api.js";
import { describeError } from "../logger.js";
import type { Logger } from "../../protocol/logger.js";
import { consoleJobLogger } from "../logger.js";
import { realScheduler } from "../scheduler.js";
import type { Scheduler } from "../scheduler.js";
import { afterFailedAttempt } from "./attempt-log.js";
import type { Deliver, DeliveryOutcome } from "./deliver.js";
import { checkOutboundEvent } from "./event-check.js";
import { DEFAULT_WEBHOOK_RETRY } from "./retry-policy.js";
import type { RetryPolicy } from "./retry-policy.js";
import type { WebhookOutbox } from "./types.js";
import type { JobCounts } from "../job-counts.js";

export interface MemoryOutboxOptions {
  readonly deliver: Deliver;
  readonly policy?: RetryPolicy;
  readonly scheduler?: Scheduler;
  readonly logger?: Logger;
  /** Event ids remembered after delivery, so a repeat enqueue is ignored (default 10,000). */
  readonly rememberIds?: number;
}

interface Entry {
  readonly outbound: OutboundEvent;
  readonly eventId: string;
  attempts: number;
  timer?: unknown;
  running?: Promise<void>;
}

export class MemoryOutbox implements WebhookOutbox {
  private readonly pending = new Map<string, Entry>();
  /** Ids already handled (delivered or abandoned), oldest first. */
  private readonly done = new Set<string>();
  private readonly policy: RetryPolicy;
  private readonly scheduler: Scheduler;
  private readonly logger: Logger;
  private readonly rememberIds: number;
  private closed = false;

  constructor(private readonly options: MemoryOutboxOptions) {
    this.policy = options.policy ?? DEFAULT_WEBHOOK_RETRY;
    this.scheduler = options.scheduler ?? realScheduler;
    this.logger = options.logger ?? consoleJobLogger;
    this.rememberIds = options.rememberIds ?? 10_000;
  }

  /** Never rejects: a bad or late event is logged, not thrown at the booking that made it. */
  enqueue(outbound: OutboundEvent): Promise<void> {
    const checked = checkOutboundEvent(outbound);
    if (!checked.ok) {
      this.logger.error("webhook event refused by the outbox", {
        host_id: outbound.hostId,
        ...checked.error,
      });
      return Promise.resolve();
    }
    const eventId = checked.value.event_id;
    if (this.closed) {
      this.logger.error("webhook enqueued after the outbox closed; dropped", { event_id: eventId });
      return Promise.resolve();
    }
    // One event is enqueued once (the BullMQ queue gets the same from its job id).
    if (this.pending.has(eventId) || this.done.has(eventId)) return Promise.resolve();
    const entry: Entry = { outbound, eventId, attempts: 0 };
    this.pending.set(eventId, entry);
    this.schedule(entry, 0);
    return Promise.resolve();
  }

  /** Events not yet delivered or abandoned. */
  get size(): number {
    return this.pending.size;
  }

  /** Being delivered (active), waiting for a retry (delayed) or for a first attempt (waiting). */
  jobCounts(): Promise<JobCounts> {
    const counts = { waiting: 0, active: 0, delayed: 0 };
    for (const entry of this.pending.values()) {
      if (entry.running !== undefined) counts.active++;
      else if (entry.attempts > 0) counts.delayed++;
      else counts.waiting++;
    }
    return Promise.resolve(counts);
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const entry of this.pending.values()) {
      if (entry.timer !== undefined) {
        this.scheduler.clear(entry.timer);
        entry.timer = undefined;
        this.run(entry);
      }
    }
    const running: Array<Promise<void>> = [];
    for (const entry of this.pending.values()) if (entry.running !== undefined) running.push(entry.running);
    await Promise.all(running);
    for (const entry of this.pending.values()) {
      this.logger.error("webhook undelivered at shutdown; dropped", {
        event_id: entry.eventId,
        host_id: entry.outbound.hostId,
        attempts: entry.attempts,
      });
    }
    this.pending.clear();
  }

  private schedule(entry: Entry, delayMs: number): void {
    entry.timer = this.scheduler.set(() => {
      entry.timer = undefined;
      this.run(entry);
    }, delayMs);
  }

  private run(entry: Entry): void {
    entry.running = this.attempt(entry).finally(() => {
      entry.running = undefined;
    });
  }

  private async attempt(entry: Entry): Promise<void> {
    entry.attempts++;
    let outcome: DeliveryOutcome;
    try {
      outcome = await this.options.deliver(entry.outbound);
    } catch (error) {
      outcome = {
        ok: false,
        error: { retryable: true, code: "network_error", message: describeError(error) },
      };
    }
    if (outcome.ok) return this.finish(entry);
    // Closing: that was the last attempt, and close() logs what is left.
    if (this.closed) return;
    const next = afterFailedAttempt(this.logger, this.policy, entry.outbound, outcome.error, entry.attempts);
    if (next.retry) this.schedule(entry, next.delayMs);
    else this.finish(entry);
  }

  private finish(entry: Entry): void {
    this.pending.delete(entry.eventId);
    this.done.add(entry.eventId);
    if (this.done.size > this.rememberIds) {
      const oldest = this.done.values().next();
      if (oldest.done !== true) this.done.delete(oldest.value);
    }
  }
}
