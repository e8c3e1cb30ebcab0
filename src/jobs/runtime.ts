/**
 * The jobs layer as the gateway runtime wires it: the outbox and the periodic workers, in
 * the embedded mode (in-process queue, plain timers) or, with a Redis URL, BullMQ and a
 * Redis task lock so several gateway processes share the work.
 *
 * `reconcile` and `approvals` are only called once the workers run, so they may close over
 * BookingDeps built after this (whose outbox is `jobs.outbox`).
 */
import type { Clock } from "../protocol/clock.js";
import type { HostDirectory } from "../booking/api.js";
import type { HoldStore, ReputationStore } from "../holds/port.js";
import type { Logger } from "../protocol/logger.js";
import { consoleJobLogger } from "./logger.js";
import { RedisTaskLock } from "./maintenance/redis-lock.js";
import type { ExpiryNotice } from "./maintenance/sweeper.js";
import { createMaintenanceWorkers } from "./maintenance/workers.js";
import type { MaintenanceIntervals, MaintenanceWorkers } from "./maintenance/workers.js";
import type { PublicFetch } from "./outbound/public-fetch.js";
import { DEFAULT_BULLMQ_PREFIX } from "./webhooks/bullmq-outbox.js";
import { createOutbox } from "./webhooks/outbox.js";
import type { RetryPolicy } from "./webhooks/retry-policy.js";
import type { WebhookOutbox } from "./webhooks/types.js";

export interface GatewayJobsOptions {
  readonly hosts: HostDirectory;
  readonly store: HoldStore & ReputationStore;
  readonly clock: Clock;
  readonly logger?: Logger;
  /** What a lapsed hold sends (edges/schcp/hold-expired.ts holdExpiredWebhook). */
  readonly expiryNotice: ExpiryNotice;
  /** Redis mode (BullMQ + task lock) when set; the embedded mode otherwise. */
  readonly redisUrl?: string;
  /** Redis key prefix of the queue and locks (default "{booking-gateway}"). */
  readonly prefix?: string;
  readonly reconcile?: (hostId: string) => Promise<unknown>;
  readonly approvals?: (hostId: string) => Promise<unknown>;
  readonly intervals?: MaintenanceIntervals;
  readonly policy?: RetryPolicy;
  /** The webhook transport (default: the public-only one). */
  readonly fetch?: PublicFetch;
}

export interface GatewayJobs {
  readonly outbox: WebhookOutbox;
  readonly workers: MaintenanceWorkers;
  start(): void;
  /** Workers first (a last sweep may still enqueue), then the outbox, then the lock. */
  close(): Promise<void>;
}

export function createGatewayJobs(options: GatewayJobsOptions): GatewayJobs {
  const logger = options.logger ?? consoleJobLogger;
  const prefix = options.prefix ?? DEFAULT_BULLMQ_PREFIX;
  const common = {
    hosts: options.hosts,
    clock: options.clock,
    logger,
    ...(options.policy === undefined ? {} : { policy: options.policy }),
    ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
  };
  const outbox =
    options.redisUrl === undefined
      ? createOutbox({ ...common, mode: "memory" })
      : createOutbox({ ...common, mode: "bullmq", redisUrl: options.redisUrl, prefix });
  const lock =
    options.redisUrl === undefined
      ? undefined
      : new RedisTaskLock({ redisUrl: options.redisUrl, prefix: `${prefix}:lock:` });
  const workers = createMaintenanceWorkers({
    store: options.store,
    hosts: options.hosts,
    clock: options.clock,
    outbox,
    logger,
    expiryNotice: options.expiryNotice,
    ...(options.reconcile === undefined ? {} : { reconcile: options.reconcile }),
    ...(options.approvals === undefined ? {} : { approvals: options.approvals }),
    ...(options.intervals === undefined ? {} : { intervals: options.intervals }),
    ...(lock === undefined ? {} : { lock }),
  });
  return {
    outbox,
    workers,
    start: () => workers.start(),
    close: async () => {
      await workers.stop();
      await outbox.close();
      await lock?.close();
    },
  };
}
