/**
 * One periodic job (sweeper, reconciliation, approval timeouts): runs every `intervalMs`,
 * never overlaps itself, logs what it throws and carries on. The next run is scheduled when
 * the last one ends, so a slow run delays the next instead of piling up behind it.
 *
 * With a TaskLock (Redis mode), a run first takes a lease named after the task for one
 * interval; a process that finds it taken skips that tick, so several gateway processes
 * run the task about once per interval between them, never two at once. A run longer than
 * half the lease renews it while it works.
 */
import { describeError } from "../logger.js";
import type { Logger } from "../../protocol/logger.js";
import { realScheduler } from "../scheduler.js";
import type { Scheduler } from "../scheduler.js";

export interface TaskLease {
  /** Extends the lease; false when it was lost (expired and taken by another process). */
  renew(ttlMs: number): Promise<boolean>;
}

export interface TaskLock {
  /** The lease, or null when another holder has it. */
  acquire(name: string, ttlMs: number): Promise<TaskLease | null>;
}

export type RunOutcome = "ran" | "failed" | "skipped_running" | "skipped_locked" | "stopped";

export interface PeriodicTaskOptions {
  readonly name: string;
  readonly intervalMs: number;
  readonly run: () => Promise<unknown>;
  readonly logger: Logger;
  readonly lock?: TaskLock;
  readonly scheduler?: Scheduler;
  /** Delay before the first run after start() (default 0: at once, so a restart catches up). */
  readonly initialDelayMs?: number;
}

export class PeriodicTask {
  private timer: unknown;
  private current?: Promise<RunOutcome>;
  private started = false;
  private readonly scheduler: Scheduler;

  constructor(private readonly options: PeriodicTaskOptions) {
    if (!(options.intervalMs > 0)) throw new RangeError(`${options.name}: intervalMs must be > 0`);
    this.scheduler = options.scheduler ?? realScheduler;
  }

  get name(): string {
    return this.options.name;
  }

  start(): void {
    if (this.started) return;
    this.started = true;
    this.schedule(this.options.initialDelayMs ?? 0);
  }

  /** Stops scheduling and waits for a run in progress to end. */
  async stop(): Promise<void> {
    this.started = false;
    if (this.timer !== undefined) this.scheduler.clear(this.timer);
    this.timer = undefined;
    await this.current;
  }

  /** One run now, under the same rules (no overlap, the lock); never rejects. */
  runNow(): Promise<RunOutcome> {
    if (this.current !== undefined) return Promise.resolve("skipped_running");
    const run = this.runLocked().finally(() => {
      this.current = undefined;
    });
    this.current = run;
    return run;
  }

  private schedule(delayMs: number): void {
    this.timer = this.scheduler.set(() => {
      this.timer = undefined;
      void this.runNow().then(() => {
        if (this.started) this.schedule(this.options.intervalMs);
      });
    }, delayMs);
  }

  private async runLocked(): Promise<RunOutcome> {
    const { name, intervalMs, lock, logger } = this.options;
    let lease: TaskLease | null = null;
    if (lock !== undefined) {
      try {
        lease = await lock.acquire(name, intervalMs);
      } catch (error) {
        logger.error(`${name}: could not take its lock; skipped`, {
          task: name,
          error: describeError(error),
        });
        return "failed";
      }
      if (lease === null) return "skipped_locked";
    }
    // The lease is renewed while the run lasts, then left to lapse on its own: no other
    // process runs this task again before an interval has passed since this run began.
    const stopRenewal = lease === null ? undefined : this.keepAlive(lease);
    try {
      await this.options.run();
      return "ran";
    } catch (error) {
      logger.error(`${name}: run failed`, { task: name, error: describeError(error) });
      return "failed";
    } finally {
      stopRenewal?.();
    }
  }

  /** Renews the lease every half interval until the returned stop() is called. */
  private keepAlive(lease: TaskLease): () => void {
    const { name, intervalMs, logger } = this.options;
    let timer: unknown;
    let stopped = false;
    const tick = (): void => {
      timer = this.scheduler.set(() => {
        lease.renew(intervalMs).then(
          (kept) => {
            if (!kept) logger.warn(`${name}: lost its lock while running`, { task: name });
            else if (!stopped) tick();
          },
          (error: unknown) =>
            logger.warn(`${name}: could not renew its lock`, { task: name, error: describeError(error) }),
        );
      }, intervalMs / 2);
    };
    tick();
    return () => {
      stopped = true;
      this.scheduler.clear(timer);
    };
  }
}
