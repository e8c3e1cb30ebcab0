import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PeriodicTask } from "../../../src/jobs/maintenance/periodic.js";
import type { TaskLease, TaskLock } from "../../../src/jobs/maintenance/periodic.js";
import { RedisTaskLock } from "../../../src/jobs/maintenance/redis-lock.js";
import { startTestRedis, uniquePrefix } from "../../support/redis.js";
import type { TestRedis } from "../../support/redis.js";
import { ManualScheduler, recordingLogger } from "../support.js";

/** A promise the test resolves by hand. */
function gate() {
  let open: () => void = () => undefined;
  const promise = new Promise<void>((r) => (open = r));
  return { promise, open };
}
const tick = () => new Promise((r) => setTimeout(r, 0));

describe("PeriodicTask", () => {
  it("runs at start, then every interval after the previous run ends", async () => {
    const scheduler = new ManualScheduler();
    let runs = 0;
    const task = new PeriodicTask({
      name: "t",
      intervalMs: 5000,
      run: () => Promise.resolve(runs++),
      logger: recordingLogger(),
      scheduler,
    });
    task.start();
    expect(scheduler.delays).toEqual([0]);
    scheduler.fireAll();
    await tick();
    expect(runs).toBe(1);
    expect(scheduler.delays).toEqual([0, 5000]);
    scheduler.fireAll();
    await tick();
    expect(runs).toBe(2);
    await task.stop();
    expect(scheduler.pending).toBe(0);
  });

  it("never overlaps itself: a second run while one is in progress is skipped", async () => {
    const g = gate();
    let runs = 0;
    const task = new PeriodicTask({
      name: "t",
      intervalMs: 1000,
      run: async () => {
        runs++;
        await g.promise;
      },
      logger: recordingLogger(),
      scheduler: new ManualScheduler(),
    });
    const first = task.runNow();
    expect(await task.runNow()).toBe("skipped_running");
    g.open();
    expect(await first).toBe("ran");
    expect(await task.runNow()).toBe("ran");
    expect(runs).toBe(2);
  });

  it("logs a failed run and keeps its schedule (never crashes the process)", async () => {
    const scheduler = new ManualScheduler();
    const logger = recordingLogger();
    const task = new PeriodicTask({
      name: "sweeper",
      intervalMs: 1000,
      run: () => Promise.reject(new Error("redis down")),
      logger,
      scheduler,
    });
    task.start();
    scheduler.fireAll();
    await tick();
    expect(logger.entries).toEqual([
      { level: "error", message: "sweeper: run failed", fields: { task: "sweeper", error: "redis down" } },
    ]);
    expect(scheduler.pending).toBe(1); // the next run is still scheduled
    await task.stop();
  });

  it("stop() waits for the run in progress and schedules nothing after it", async () => {
    const g = gate();
    const scheduler = new ManualScheduler();
    let finished = false;
    const task = new PeriodicTask({
      name: "t",
      intervalMs: 1000,
      run: async () => {
        await g.promise;
        finished = true;
      },
      logger: recordingLogger(),
      scheduler,
    });
    task.start();
    scheduler.fireAll();
    const stopped = task.stop();
    g.open();
    await stopped;
    expect(finished).toBe(true);
    await tick();
    expect(scheduler.pending).toBe(0);
  });

  it("skips a tick whose lock another process holds, and renews a lease during a long run", async () => {
    const renewals: number[] = [];
    let free = false;
    const lease: TaskLease = {
      renew: (ms) => {
        renewals.push(ms);
        return Promise.resolve(true);
      },
    };
    const lock: TaskLock = { acquire: () => Promise.resolve(free ? lease : null) };
    const scheduler = new ManualScheduler();
    const g = gate();
    let runs = 0;
    const task = new PeriodicTask({
      name: "t",
      intervalMs: 1000,
      run: async () => {
        runs++;
        await g.promise;
      },
      logger: recordingLogger(),
      scheduler,
      lock,
    });
    expect(await task.runNow()).toBe("skipped_locked");
    expect(runs).toBe(0);
    free = true;
    const running = task.runNow();
    await tick();
    expect(scheduler.delays.at(-1)).toBe(500); // renewal at half the lease
    scheduler.fireAll();
    await tick();
    expect(renewals).toEqual([1000]);
    g.open();
    expect(await running).toBe("ran");
    expect(scheduler.pending).toBe(0); // renewal stopped with the run
  });

  it("treats a lock that cannot be reached as a failed, logged tick", async () => {
    const logger = recordingLogger();
    const task = new PeriodicTask({
      name: "t",
      intervalMs: 1000,
      run: () => Promise.resolve(),
      logger,
      lock: { acquire: () => Promise.reject(new Error("ECONNREFUSED")) },
      scheduler: new ManualScheduler(),
    });
    expect(await task.runNow()).toBe("failed");
    expect(logger.entries[0]).toMatchObject({ level: "error", fields: { error: "ECONNREFUSED" } });
  });
});

describe("RedisTaskLock: several gateway processes, one run per interval", () => {
  let redis: TestRedis;
  beforeAll(async () => {
    redis = await startTestRedis();
  });
  afterAll(async () => {
    await redis.stop();
  });

  it("lets one of two processes take the lease; renewal only by its holder; the lease lapses", async () => {
    const prefix = `${uniquePrefix("lock")}`;
    const a = new RedisTaskLock({ redisUrl: redis.url, prefix });
    const b = new RedisTaskLock({ redisUrl: redis.url, prefix });
    try {
      const leaseA = await a.acquire("sweeper", 200);
      expect(leaseA).not.toBeNull();
      expect(await b.acquire("sweeper", 200)).toBeNull();
      expect(await b.acquire("reconcile", 200)).not.toBeNull(); // another task, another lease
      expect(await leaseA?.renew(300)).toBe(true);
      await new Promise((r) => setTimeout(r, 350));
      const leaseB = await b.acquire("sweeper", 200);
      expect(leaseB).not.toBeNull();
      expect(await leaseA?.renew(300)).toBe(false); // lost: b holds it now
    } finally {
      await a.close();
      await b.close();
    }
  });

  it("two PeriodicTasks sharing Redis run the task once per tick between them", async () => {
    const prefix = `${uniquePrefix("lock")}`;
    const locks = [
      new RedisTaskLock({ redisUrl: redis.url, prefix }),
      new RedisTaskLock({ redisUrl: redis.url, prefix }),
    ];
    let runs = 0;
    const tasks = locks.map(
      (lock) =>
        new PeriodicTask({
          name: "sweeper",
          intervalMs: 60_000,
          run: () => Promise.resolve(runs++),
          logger: recordingLogger(),
          lock,
          scheduler: new ManualScheduler(),
        }),
    );
    try {
      const outcomes = await Promise.all(tasks.map((t) => t.runNow()));
      expect(outcomes.sort()).toEqual(["ran", "skipped_locked"]);
      expect(runs).toBe(1);
    } finally {
      await Promise.all(locks.map((l) => l.close()));
    }
  });
});
