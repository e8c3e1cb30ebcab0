/**
 * The background workers of a gateway process (src/jobs/maintenance): the hold sweeper
 * (hold.expired webhooks and reputation), reconciliation of confirms stuck between the
 * upstream create and the local record, host_approval deadlines, and the catalog refresh that
 * keeps each host's health (booking/hosts/health.ts). In Redis mode a Redis lock keeps several
 * processes from running the same task at once (the catalog refresh excepted: each process
 * reads its own).
 */
import { holdExpiredWebhook } from "../../edges/schcp/hold-expired.js";
import type { BookingDeps } from "../../booking/api.js";
import type { BookingMaintenance } from "../booking-service.js";
import { refreshDueCatalogs } from "../../booking/hosts/index.js";
import { createMaintenanceWorkers, RedisTaskLock, taskLockPrefix } from "../../jobs/maintenance/index.js";
import type { MaintenanceIntervals } from "../../jobs/maintenance/index.js";
import type { Logger } from "../../protocol/logger.js";

export type WorkerIntervals = MaintenanceIntervals;

export interface Workers {
  stop(): Promise<void>;
}

export function startWorkers(opts: {
  readonly deps: BookingDeps;
  readonly maintenance: BookingMaintenance;
  readonly logger: Logger;
  readonly redisUrl?: string;
  readonly redisKeyPrefix?: string;
  readonly intervals?: WorkerIntervals;
}): Workers {
  const lock =
    opts.redisUrl === undefined
      ? undefined
      : new RedisTaskLock({
          redisUrl: opts.redisUrl,
          prefix: taskLockPrefix(opts.redisKeyPrefix),
        });
  const workers = createMaintenanceWorkers({
    store: opts.deps.store,
    hosts: opts.deps.hosts,
    clock: opts.deps.clock,
    outbox: opts.deps.outbox,
    logger: opts.logger,
    expiryNotice: holdExpiredWebhook,
    reconcile: (hostId) => opts.maintenance.reconcile(hostId),
    approvals: (hostId) => opts.maintenance.expireOverdue(hostId),
    waitlist: (hostId) => opts.maintenance.sweepWaitlist(hostId),
    catalogs: () => refreshDueCatalogs(opts.deps.hosts, opts.deps.clock.now()),
    ...(opts.intervals !== undefined && { intervals: opts.intervals }),
    ...(lock !== undefined && { lock }),
  });
  workers.start();
  return {
    stop: async () => {
      await workers.stop();
      await lock?.close();
    },
  };
}
