/**
 * SchCP §3.3: "A key app that does not answer never stops the cancel: the endpoint SHOULD retry
 * for a day and then leave the claim held". In process (embedded default) and on BullMQ (Redis),
 * where a queued give-back survives a restart.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Redis } from "ioredis";
import {
  BullmqGiveBackQueue,
  MemoryGiveBackQueue,
  type GiveBackJob,
} from "../../../src/jobs/key-app/give-back-queue.js";
import { DEFAULT_WEBHOOK_RETRY, exponentialBackoff } from "../../../src/jobs/webhooks/retry-policy.js";
import { dropPrefix, startTestRedis, type TestRedis } from "../../support/redis.js";
import { ManualScheduler, recordingLogger, waitFor } from "../support.js";

const JOB: GiveBackJob = {
  hostId: "host-a",
  statusUrl: "https://keyapp.example/status/m-1",
  claimId: "host-a/h_1",
};

describe("in process", () => {
  it("§3.3 retries for about a day, then leaves the claim held (logged)", async () => {
    const scheduler = new ManualScheduler();
    const logger = recordingLogger();
    let attempts = 0;
    const queue = new MemoryGiveBackQueue({
      attempt: () => {
        attempts++;
        return Promise.resolve(false);
      },
      scheduler,
      logger,
    });
    await queue.enqueue(JOB);
    await queue.enqueue(JOB); // the same claim is one job
    for (let i = 0; i < 20 && scheduler.pending > 0; i++) {
      scheduler.fireAll();
      await new Promise((r) => setTimeout(r, 0));
    }
    // The caller's own attempt was the first of eight.
    expect(attempts).toBe(DEFAULT_WEBHOOK_RETRY.maxAttempts - 1);
    const total = scheduler.delays.reduce((a, b) => a + b, 0);
    expect(total).toBeGreaterThan(20 * 3_600_000);
    expect(total).toBeLessThan(26 * 3_600_000);
    expect(queue.size).toBe(0);
    expect(logger.entries.map((e) => e.message)).toEqual([expect.stringMatching(/stays held/)]);
  });

  it("stops once the key app takes the unit back", async () => {
    const scheduler = new ManualScheduler();
    let attempts = 0;
    const queue = new MemoryGiveBackQueue({
      attempt: () => Promise.resolve(++attempts === 2),
      scheduler,
      logger: recordingLogger(),
    });
    await queue.enqueue(JOB);
    for (let i = 0; i < 5 && scheduler.pending > 0; i++) {
      scheduler.fireAll();
      await new Promise((r) => setTimeout(r, 0));
    }
    expect(attempts).toBe(2);
    expect(queue.size).toBe(0);
  });
});

describe("BullMQ (Redis)", () => {
  let redis: TestRedis;
  const prefixes: string[] = [];
  beforeAll(async () => {
    redis = await startTestRedis();
  });
  afterAll(async () => {
    const client = new Redis(redis.url);
    for (const p of prefixes) await dropPrefix(client, p);
    await client.quit();
    await redis.stop();
  });
  const bullPrefix = () => {
    const p = `{test-gb-${randomBytes(6).toString("hex")}}`;
    prefixes.push(p);
    return p;
  };

  it("§3.3 a queued give-back survives a restart: another process's worker sends it", async () => {
    const prefix = bullPrefix();
    const policy = exponentialBackoff({ maxAttempts: 4, baseMs: 50, factor: 2 });
    // The process that cancelled queues it and stops before any retry.
    const first = new BullmqGiveBackQueue({
      redisUrl: redis.url,
      prefix,
      policy,
      worker: false,
      attempt: () => Promise.resolve(false),
    });
    await first.enqueue(JOB);
    await first.enqueue(JOB);
    expect((await first.jobCounts())["delayed"]).toBe(1);
    await first.close();

    const seen: GiveBackJob[] = [];
    let failures = 1;
    const second = new BullmqGiveBackQueue({
      redisUrl: redis.url,
      prefix,
      policy,
      logger: recordingLogger(),
      attempt: (job) => {
        seen.push(job);
        return Promise.resolve(failures-- <= 0);
      },
    });
    try {
      await waitFor(() => seen.length >= 2, 10_000);
      await waitFor(async () => (await second.bullQueue.getCompletedCount()) === 1, 5_000);
      expect(seen[0]).toEqual(JOB);
    } finally {
      await second.close();
    }
  });

  it("§3.3 after the last attempt the claim is left held and logged", async () => {
    const prefix = bullPrefix();
    const logger = recordingLogger();
    let attempts = 0;
    const queue = new BullmqGiveBackQueue({
      redisUrl: redis.url,
      prefix,
      policy: exponentialBackoff({ maxAttempts: 3, baseMs: 20, factor: 1 }),
      logger,
      attempt: () => {
        attempts++;
        return Promise.resolve(false);
      },
    });
    try {
      await queue.enqueue(JOB);
      await waitFor(async () => (await queue.bullQueue.getFailedCount()) === 1, 10_000);
      expect(attempts).toBe(2);
      expect(logger.entries.some((e) => /stays held/.test(e.message))).toBe(true);
    } finally {
      await queue.close();
    }
  });
});
