import { randomBytes } from "node:crypto";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createPublicFetch } from "../../../src/jobs/outbound/public-fetch.js";
import { BullmqOutbox } from "../../../src/jobs/webhooks/bullmq-outbox.js";
import type { Deliver } from "../../../src/jobs/webhooks/deliver.js";
import { createOutbox } from "../../../src/jobs/webhooks/outbox.js";
import { exponentialBackoff } from "../../../src/jobs/webhooks/retry-policy.js";
import { Redis } from "ioredis";
import { dropPrefix, startTestRedis } from "../../support/redis.js";
import type { TestRedis } from "../../support/redis.js";
import {
  HOST_ID,
  discoveryKeys,
  fakeHosts,
  hostKey,
  outbound,
  recordingLogger,
  startAgent,
  waitFor,
} from "../support.js";

const key = hostKey("maple-street-auto-2026-10");
const hosts = fakeHosts({ [HOST_ID]: [key] });
const clock = { now: () => Date.now() };
const policy = exponentialBackoff({ maxAttempts: 4, baseMs: 20, factor: 2 });
const fetch = createPublicFetch({ allowPrivate: true });

let redis: TestRedis;
const closers: Array<() => Promise<void>> = [];
beforeAll(async () => {
  redis = await startTestRedis();
});
afterEach(async () => {
  while (closers.length > 0) await closers.pop()?.();
});
const prefixes: string[] = [];
afterAll(async () => {
  const client = new Redis(redis.url);
  for (const prefix of prefixes) await dropPrefix(client, prefix);
  await client.quit();
  await redis.stop();
});

/** Braces keep a test's queue keys in one cluster slot and apart from every other run. */
const uniqueBullPrefix = () => {
  const prefix = `{test-${randomBytes(6).toString("hex")}}`;
  prefixes.push(prefix);
  return prefix;
};

describe("BullMQ webhook queue (Redis mode)", () => {
  it("delivers through queue 'webhooks', retrying a failing endpoint; one job per event_id", async () => {
    const agent = await startAgent(discoveryKeys([key]), [500, 502]);
    closers.push(agent.close);
    const logger = recordingLogger();
    const outbox = createOutbox({
      mode: "bullmq",
      redisUrl: redis.url,
      prefix: uniqueBullPrefix(),
      hosts,
      clock,
      logger,
      policy,
      fetch,
    });
    closers.push(() => outbox.close());

    const event = outbound("e_bull_1", agent.url());
    await outbox.enqueue(event);
    await outbox.enqueue(event); // same event_id: not a second job
    await waitFor(() => agent.received.length >= 3, 10_000);
    const queue = (outbox as BullmqOutbox).bullQueue;
    expect(queue.name).toBe("webhooks");
    expect((await queue.getJob("e_bull_1"))?.name).toBe("deliver"); // job id = event_id
    await waitFor(() => logger.entries.filter((e) => e.level === "warn").length === 2);
    expect(agent.received.every((r) => r.verified.ok)).toBe(true);
    expect(logger.entries.filter((e) => e.level === "warn").map((e) => e.fields["status"])).toEqual([
      500, 502,
    ]);
    // Nothing more arrives: the event was enqueued once.
    await new Promise((r) => setTimeout(r, 200));
    expect(agent.received).toHaveLength(3);
    expect(await queue.getJobCounts("completed")).toEqual({ completed: 1 });
  });

  it("stops at once on a failure no retry can fix (UnrecoverableError), and logs it", async () => {
    let calls = 0;
    const deliver: Deliver = () => {
      calls++;
      return Promise.resolve({
        ok: false,
        error: { retryable: false, code: "non_public_address", message: "refused" },
      });
    };
    const logger = recordingLogger();
    const outbox = new BullmqOutbox({
      redisUrl: redis.url,
      prefix: uniqueBullPrefix(),
      deliver,
      policy,
      logger,
    });
    closers.push(() => outbox.close());
    await outbox.enqueue(outbound("e_bull_2", "https://evil.example/h"));
    await waitFor(() => logger.entries.some((e) => e.level === "error"), 10_000);
    await new Promise((r) => setTimeout(r, 200));
    expect(calls).toBe(1);
    const job = await outbox.bullQueue.getJob("e_bull_2");
    expect(await job?.getState()).toBe("failed");
    expect(logger.entries.find((e) => e.level === "error")?.fields).toMatchObject({
      code: "non_public_address",
    });
  });

  it("gives up after maxAttempts", async () => {
    let calls = 0;
    const deliver: Deliver = () => {
      calls++;
      return Promise.resolve({
        ok: false,
        error: { retryable: true, code: "http_status", message: "500", status: 500 },
      });
    };
    const logger = recordingLogger();
    const outbox = new BullmqOutbox({
      redisUrl: redis.url,
      prefix: uniqueBullPrefix(),
      deliver,
      policy,
      logger,
    });
    closers.push(() => outbox.close());
    await outbox.enqueue(outbound("e_bull_3", "https://agent.example/h"));
    await waitFor(() => logger.entries.some((e) => e.level === "error"), 10_000);
    // The worker logs the last failure before BullMQ has moved the job to "failed": wait for the
    // state itself rather than read it once (a clean-clone CI run read "active" here).
    const job = await outbox.bullQueue.getJob("e_bull_3");
    await waitFor(async () => (await job?.getState()) === "failed", 10_000);
    expect(calls).toBe(4);
    expect(logger.entries.filter((e) => e.level === "warn")).toHaveLength(3);
    expect(await job?.getState()).toBe("failed");
  });

  it("lets one process enqueue and another deliver (shared queue, worker: false on the producer)", async () => {
    const agent = await startAgent(discoveryKeys([key]));
    closers.push(agent.close);
    const prefix = uniqueBullPrefix();
    const common = { mode: "bullmq" as const, redisUrl: redis.url, prefix, hosts, clock, policy, fetch };
    const producer = createOutbox({ ...common, worker: false, logger: recordingLogger() });
    closers.push(() => producer.close());
    await producer.enqueue(outbound("e_bull_4", agent.url()));
    await new Promise((r) => setTimeout(r, 100));
    expect(agent.received).toHaveLength(0); // nobody consumes yet

    const consumer = createOutbox({ ...common, logger: recordingLogger() });
    closers.push(() => consumer.close());
    await waitFor(() => agent.received.length === 1, 10_000);
    expect(agent.received[0]?.verified.ok).toBe(true);
  });

  it("logs, and does not reject, when Redis cannot take the job", async () => {
    const logger = recordingLogger();
    const outbox = new BullmqOutbox({
      redisUrl: "redis://127.0.0.1:1",
      redisOptions: { retryStrategy: () => null, lazyConnect: true },
      deliver: () => Promise.resolve({ ok: true, value: 200 }),
      worker: false,
      logger,
    });
    closers.push(() => outbox.close());
    await expect(outbox.enqueue(outbound("e_down", "https://agent.example/h"))).resolves.toBeUndefined();
    expect(logger.entries.some((e) => e.level === "error" && e.fields["event_id"] === "e_down")).toBe(true);
  });
});
