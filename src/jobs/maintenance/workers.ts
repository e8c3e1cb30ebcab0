/**
 * The gateway's periodic workers, started and stopped together:
 * - sweeper: lapsed holds, reputation and hold.expired (sweeper.ts);
 * - reconcile: holds stuck in "confirming" (a crash in between is repaired by asking the
 *   upstream, never by creating twice: docs/ARCHITECTURE.md, Two-phase confirm and reconciliation), through the
 *   function the core provides (reconcileStuckConfirms(deps, hostId));
 * - approvals: host_approval deadlines (§5.7 approval_timeout), through the core's hook;
 * - catalogs: each host's catalog read again when its health says it is due (a degraded host
 *   sooner, with backoff), through the core's refreshDueCatalogs. It ticks often and reads
 *   only what is due. It never takes the lock: every process keeps its own catalog and health.
 * Reconcile and approvals run for every configured host. In Redis mode pass a TaskLock
 * (RedisTaskLock) so several gateway processes do not run the same task at once.
 */
import type { Clock } from "../../protocol/clock.js";
import type { HostDirectory, Outbox } from "../../booking/api.js";
import type { HoldStore, ReputationStore } from "../../holds/port.js";
import { consoleJobLogger, describeError } from "../logger.js";
import type { Logger } from "../../protocol/logger.js";
import type { Scheduler } from "../scheduler.js";
import { PeriodicTask } from "./periodic.js";
import type { RunOutcome, TaskLock } from "./periodic.js";
import { sweepExpiredHolds, type ExpiryNotice } from "./sweeper.js";
import type { SweepOptions } from "./sweeper.js";

type MaintenanceTaskName = "sweeper" | "reconcile" | "approvals" | "catalogs";

export interface MaintenanceIntervals {
  /** Default 5 s: a lapsed hold's time is free anyway (lazy expiry); this sends its webhook. */
  readonly sweepMs?: number;
  /** Default 30 s. */
  readonly reconcileMs?: number;
  /** Default 60 s. */
  readonly approvalsMs?: number;
  /** How often due catalog reads are looked for (default 5 s); when each is due is the host's. */
  readonly catalogTickMs?: number;
}

export interface MaintenanceOptions {
  readonly store: HoldStore & ReputationStore;
  readonly hosts: HostDirectory;
  readonly clock: Clock;
  readonly outbox: Outbox;
  readonly logger?: Logger;
  /** The webhook a lapsed hold sends (the core's holdExpiredWebhook), given so jobs import no core records. */
  readonly expiryNotice: ExpiryNotice;
  /** Settles one host's stuck confirms (the core's (hostId) => reconcileStuckConfirms(deps, hostId)). */
  readonly reconcile?: (hostId: string) => Promise<unknown>;
  /** A host's lapsed waitlist offers and passed entries (the core's sweepWaitlist), run by the sweeper. */
  readonly waitlist?: (hostId: string) => Promise<unknown>;
  /** Expires one host's unanswered approvals. */
  readonly approvals?: (hostId: string) => Promise<unknown>;
  /** Reads the catalogs that are due (refreshDueCatalogs(hosts, now)). */
  readonly catalogs?: () => Promise<unknown>;
  readonly intervals?: MaintenanceIntervals;
  readonly sweep?: SweepOptions;
  readonly lock?: TaskLock;
  readonly scheduler?: Scheduler;
}

export interface MaintenanceWorkers {
  start(): void;
  /** Stops scheduling and waits for runs in progress. */
  stop(): Promise<void>;
  /** One run of a task now (tests, operator tooling); undefined when the task is not configured. */
  runNow(task: MaintenanceTaskName): Promise<RunOutcome | undefined>;
}

export function createMaintenanceWorkers(options: MaintenanceOptions): MaintenanceWorkers {
  const logger = options.logger ?? consoleJobLogger;
  const common = {
    logger,
    ...(options.lock === undefined ? {} : { lock: options.lock }),
    ...(options.scheduler === undefined ? {} : { scheduler: options.scheduler }),
  };
  const tasks = new Map<MaintenanceTaskName, PeriodicTask>();
  tasks.set(
    "sweeper",
    new PeriodicTask({
      ...common,
      name: "sweeper",
      intervalMs: options.intervals?.sweepMs ?? 5_000,
      run: () => sweepExpiredHolds({ ...options, logger }, options.sweep),
    }),
  );
  const perHost = (name: MaintenanceTaskName, intervalMs: number, fn: (hostId: string) => Promise<unknown>) =>
    tasks.set(
      name,
      new PeriodicTask({
        ...common,
        name,
        intervalMs,
        run: () => forEachHost(options.hosts, name, fn, logger),
      }),
    );
  if (options.reconcile !== undefined)
    perHost("reconcile", options.intervals?.reconcileMs ?? 30_000, options.reconcile);
  if (options.approvals !== undefined)
    perHost("approvals", options.intervals?.approvalsMs ?? 60_000, options.approvals);
  if (options.catalogs !== undefined) {
    const { lock: _shared, ...local } = common;
    tasks.set(
      "catalogs",
      new PeriodicTask({
        ...local,
        name: "catalogs",
        intervalMs: options.intervals?.catalogTickMs ?? 5_000,
        run: options.catalogs,
      }),
    );
  }

  return {
    start: () => tasks.forEach((t) => t.start()),
    stop: async () => {
      await Promise.all([...tasks.values()].map((t) => t.stop()));
    },
    runNow: (task) => tasks.get(task)?.runNow() ?? Promise.resolve(undefined),
  };
}

/** One host's failure is logged and the next host still runs. */
async function forEachHost(
  hosts: HostDirectory,
  task: string,
  fn: (hostId: string) => Promise<unknown>,
  logger: Logger,
): Promise<void> {
  for (const runtime of hosts.list()) {
    const hostId = runtime.config.id;
    try {
      await fn(hostId);
    } catch (error) {
      logger.error(`${task}: host run failed`, { task, host_id: hostId, error: describeError(error) });
    }
  }
}
