/**
 * createOutbox: the Outbox port (src/booking/api.ts) for the gateway runtime. The embedded
 * default gets the in-process queue; Redis mode gets BullMQ, so several gateway processes
 * share one queue and a restart loses no queued delivery. Both deliver through the
 * public-only transport (SchCP §5.8) unless a test injects another.
 */
import type { Clock } from "../../protocol/clock.js";
import type { HostDirectory } from "../../booking/api.js";
import type { Logger } from "../../protocol/logger.js";
import { consoleJobLogger } from "../logger.js";
import { createPublicFetch } from "../outbound/public-fetch.js";
import type { PublicFetch } from "../outbound/public-fetch.js";
import type { Scheduler } from "../scheduler.js";
import { BullmqOutbox } from "./bullmq-outbox.js";
import type { BullmqOutboxOptions } from "./bullmq-outbox.js";
import { createDeliver } from "./deliver.js";
import { MemoryOutbox } from "./memory-outbox.js";
import type { RetryPolicy } from "./retry-policy.js";
import type { WebhookOutbox } from "./types.js";

interface CommonOutboxOptions {
  readonly hosts: HostDirectory;
  readonly clock: Clock;
  readonly logger?: Logger;
  readonly policy?: RetryPolicy;
  /** The transport; the public-only one by default. */
  readonly fetch?: PublicFetch;
}

export type CreateOutboxOptions = CommonOutboxOptions &
  (
    | { readonly mode: "memory"; readonly scheduler?: Scheduler }
    | ({ readonly mode: "bullmq" } & Omit<BullmqOutboxOptions, "deliver" | "policy" | "logger">)
  );

export function createOutbox(options: CreateOutboxOptions): WebhookOutbox {
  const logger = options.logger ?? consoleJobLogger;
  const deliver = createDeliver({
    hosts: options.hosts,
    clock: options.clock,
    fetch: options.fetch ?? createPublicFetch(),
  });
  const policy = options.policy;
  if (options.mode === "memory") {
    return new MemoryOutbox({
      deliver,
      logger,
      ...(policy === undefined ? {} : { policy }),
      ...(options.scheduler === undefined ? {} : { scheduler: options.scheduler }),
    });
  }
  const { mode: _mode, hosts: _hosts, clock: _clock, fetch: _fetch, ...bull } = options;
  return new BullmqOutbox({ ...bull, deliver, logger, ...(policy === undefined ? {} : { policy }) });
}
