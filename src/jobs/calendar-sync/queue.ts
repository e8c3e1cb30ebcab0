/**
 * Calendar sync jobs: each calendar host is synced periodically (its `sync_every`)
 * and whenever its calendar says it changed (a push: Google watch channel, Graph subscription),
 * one sync per host at a time. The work itself (read, expand, lay busy time, rewrite lagging
 * own events) is the caller's `run(hostId)`; this only schedules it.
 *
 * - Embedded default: in-process timers; a request while the host's sync runs sets it to run
 *   once more after (pushes coalesce, none are lost). The syncs at start and on schedule run
 *   at most `concurrency` at a time (default 4), so thousands of hosts starting together catch
 *   up a few at a time rather than all at once; the catch-up at start is logged as it goes.
 *   A request (a push, an operator) is not held behind them.
 * - Redis mode: BullMQ queue "calendar-sync", a job scheduler per host (every process upserts
 *   the same one, so there is one schedule however many run), and push jobs de-duplicated per
 *   host within a second. Any process's worker takes a job; concurrency 1 per process and a
 *   per-host job id keep one host's syncs from overlapping.
 */
import { Queue, Worker } from "bullmq";
import { openRedis } from "../../redis/client.js";
import { describeError } from "../logger.js";
import type { Logger } from "../../protocol/logger.js";
import { bullmqJobCounts, type JobCounts } from "../job-counts.js";

export interface CalendarSyncSchedule {
  readonly hostId: string;
  readonly everyMs: number;
}

export interface CalendarSyncQueue {
  /** Ask for a sync of this host soon (a push, an operator, a start). */
  request(hostId: string, reason: string): Promise<void>;
  /** Sync this host now and every `everyMs` from now on (a host made live while running). */
  add(schedule: CalendarSyncSchedule): Promise<void>;
  /** Stop syncing this host (a host no longer served); a run under way finishes. */
  remove(hostId: string): Promise<void>;
  close(): Promise<void>;
  /** The sync jobs it holds, by state (metrics; the BullMQ queue only). */
  jobCounts?(): Promise<JobCounts>;
}

export type RunSync = (hostId: string, reason: string) => Promise<void>;

const DEFAULT_SYNC_CONCURRENCY = 4;

export interface MemorySyncOptions {
  /** Syncs at start and on schedule running at once (default DEFAULT_SYNC_CONCURRENCY). */
  readonly concurrency?: number;
}

export function memoryCalendarSyncQueue(
  schedules: readonly CalendarSyncSchedule[],
  run: RunSync,
  logger: Logger,
  options: MemorySyncOptions = {},
): CalendarSyncQueue {
  const running = new Map<string, Promise<void>>();
  const again = new Map<string, string>();
  const timers = new Map<string, NodeJS.Timeout>();
  let closed = false;
  const concurrency = Math.max(1, Math.floor(options.concurrency ?? DEFAULT_SYNC_CONCURRENCY));
  let active = 0;
  const waiting: Array<() => void> = [];
  /** Runs `fn` once fewer than `concurrency` gated runs are under way (nothing once closed). */
  const gated = async (fn: () => Promise<void>): Promise<void> => {
    if (active >= concurrency) await new Promise<void>((wake) => waiting.push(wake));
    active++;
    try {
      if (!closed) await fn();
    } finally {
      active--;
      waiting.shift()?.();
    }
  };
  // The catch-up at start: every host's first sync, logged every tenth of the way.
  const catchUp = { total: schedules.length, done: 0, startedAt: Date.now() };
  const step = Math.max(1, Math.ceil(catchUp.total / 10));
  if (catchUp.total > 0) logger.info("calendar catch-up started", { hosts: catchUp.total, concurrency });
  const caughtUp = (): void => {
    catchUp.done++;
    if (catchUp.done % step === 0 || catchUp.done === catchUp.total)
      logger.info("calendar catch-up", {
        synced: catchUp.done,
        hosts: catchUp.total,
        concurrency,
        elapsed_ms: Date.now() - catchUp.startedAt,
      });
  };

  const start = (hostId: string, reason: string, first = false): void => {
    if (closed) return;
    if (running.has(hostId)) {
      again.set(hostId, reason);
      return;
    }
    const sync = () => run(hostId, reason);
    const p = (reason === "start" || reason === "schedule" ? gated(sync) : sync())
      .finally(() => {
        if (first) caughtUp();
      })
      .catch((e: unknown) =>
        logger.error("calendar sync threw", { host_id: hostId, error: describeError(e) }),
      )
      .finally(() => {
        running.delete(hostId);
        const next = again.get(hostId);
        if (next !== undefined) {
          again.delete(hostId);
          start(hostId, next);
        }
      });
    running.set(hostId, p);
  };

  const stopTimer = (hostId: string): void => {
    clearInterval(timers.get(hostId));
    timers.delete(hostId);
  };
  const schedule = (s: CalendarSyncSchedule, first = false): void => {
    if (closed) return;
    stopTimer(s.hostId);
    start(s.hostId, "start", first);
    const t = setInterval(() => start(s.hostId, "schedule"), s.everyMs);
    t.unref();
    timers.set(s.hostId, t);
  };
  for (const s of schedules) schedule(s, true);
  return {
    request(hostId, reason) {
      start(hostId, reason);
      return Promise.resolve();
    },
    add(s) {
      schedule(s);
      return Promise.resolve();
    },
    remove(hostId) {
      stopTimer(hostId);
      again.delete(hostId);
      return Promise.resolve();
    },
    async close() {
      closed = true;
      for (const t of timers.values()) clearInterval(t);
      timers.clear();
      again.clear();
      while (running.size > 0) await Promise.all([...running.values()]);
    },
  };
}

export const CALENDAR_SYNC_QUEUE = "calendar-sync";

interface SyncJob {
  readonly hostId: string;
  readonly reason: string;
}

export function bullmqCalendarSyncQueue(
  opts: { readonly redisUrl: string; readonly prefix: string },
  schedules: readonly CalendarSyncSchedule[],
  run: RunSync,
  logger: Logger,
): CalendarSyncQueue {
  const onError = (e: Error) => logger.error("calendar sync queue error", { error: e.message });
  const producer = openRedis(opts.redisUrl, {
    redisOptions: { maxRetriesPerRequest: 1, commandTimeout: 5_000 },
  });
  producer.on("error", onError);
  // On a cluster the per-node options carry maxRetriesPerRequest: null, where BullMQ checks it.
  const consumer = openRedis(opts.redisUrl, { redisOptions: { maxRetriesPerRequest: null } });
  consumer.on("error", onError);
  const queue = new Queue<SyncJob>(CALENDAR_SYNC_QUEUE, { connection: producer, prefix: opts.prefix });
  queue.on("error", onError);
  const worker = new Worker<SyncJob>(
    CALENDAR_SYNC_QUEUE,
    async (job) => {
      await run(job.data.hostId, job.data.reason);
    },
    { connection: consumer, prefix: opts.prefix, concurrency: 1 },
  );
  worker.on("error", onError);
  worker.on("failed", (job, e) =>
    logger.error("calendar sync job failed", { host_id: job?.data.hostId, error: e.message }),
  );
  const upsert = (s: CalendarSyncSchedule) =>
    queue.upsertJobScheduler(
      `calendar:${s.hostId}`,
      { every: s.everyMs, immediately: true },
      {
        name: "sync",
        data: { hostId: s.hostId, reason: "schedule" },
        opts: { removeOnComplete: 100, removeOnFail: 100 },
      },
    );
  const ready = Promise.all(schedules.map(upsert)).catch((e: unknown) =>
    logger.error("calendar sync schedules not set", { error: describeError(e) }),
  );
  return {
    jobCounts: () => bullmqJobCounts(queue),
    async add(s) {
      await ready;
      await upsert(s);
    },
    async remove(hostId) {
      await ready;
      // The scheduler is shared by every process: one that still serves the host upserts it
      // again when it next starts or activates it.
      await queue.removeJobScheduler(`calendar:${hostId}`);
    },
    async request(hostId, reason) {
      await ready;
      // Pushes for one host within the same second are one job (a burst of notifications);
      // a later one is a new job, so a change made while a sync runs is never missed.
      await queue.add(
        "sync",
        { hostId, reason },
        {
          jobId: `push-${hostId}-${Math.floor(Date.now() / 1000)}`,
          removeOnComplete: true,
          removeOnFail: 100,
        },
      );
    },
    async close() {
      await ready;
      await worker.close();
      await queue.close();
      producer.disconnect();
      consumer.disconnect();
    },
  };
}
