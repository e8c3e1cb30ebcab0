/**
 * The durable host messenger against a real Redis: BullMQ queue "host-messages",
 * one job per message key. Each test has its own hash-tagged prefix, dropped at the end.
 * Waits are on states and log lines (waitFor), never on fixed sleeps, except where a test
 * shows that nothing more happens.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { hostMessenger } from "../../../src/gateway/runtime/calendar-hosts.js";
import {
  createBullmqHostMessenger,
  hostMessageJobId,
  HOST_MESSAGE_QUEUE,
  type BullmqMessengerOptions,
  type DurableHostMessenger,
  type HostMessage,
  type MessageTransport,
} from "../../../src/jobs/outbox/index.js";
import { dropPrefix, startTestRedis, type TestRedis } from "../../support/redis.js";
import { recordingLogger, waitFor } from "../support.js";

const LINK = "https://gw.example/approve/eyJoIjoiaDEifQ.bearer-mac";
const message = (key = "approval:h1:b_1"): HostMessage => ({
  to: { email: "owner@example.test" },
  subject: "Booking request: Consultation, Thu 3 Dec 10:00",
  text: `Approve or decline: ${LINK}`,
  key,
  hostId: "h1",
  expiresAt: Date.now() + 3_600_000,
});

let redis: TestRedis;
let admin: Redis;
const closers: Array<() => Promise<void>> = [];
const prefixes: string[] = [];
beforeAll(async () => {
  redis = await startTestRedis();
  admin = new Redis(redis.url);
});
afterEach(async () => {
  while (closers.length > 0) await closers.pop()?.();
});
afterAll(async () => {
  for (const prefix of prefixes) await dropPrefix(admin, prefix);
  await admin.quit();
  await redis.stop();
});

/** Braces keep a test's queue keys in one cluster slot and apart from every other run. */
const uniqueBullPrefix = () => {
  const prefix = `{test-hm-${randomBytes(6).toString("hex")}}`;
  prefixes.push(prefix);
  return prefix;
};

/** A transport that records what it sent and fails while `failures` lasts. */
function recordingTransport(failures = 0, sent: HostMessage[] = []) {
  const calls: number[] = [];
  let left = failures;
  const transport: MessageTransport = {
    name: "rec",
    accepts: () => true,
    send: (m) => {
      calls.push(Date.now());
      if (left > 0) {
        left--;
        return Promise.reject(new Error("peer down"));
      }
      sent.push(m);
      return Promise.resolve();
    },
  };
  return { transport, sent, calls };
}

function messenger(
  opts: Partial<BullmqMessengerOptions> & Pick<BullmqMessengerOptions, "prefix" | "transports" | "logger">,
): DurableHostMessenger {
  const m = createBullmqHostMessenger({ redisUrl: redis.url, baseDelayMs: 20, ...opts });
  closers.push(() => m.close());
  return m;
}

/** The job's stored data, read from Redis as an operator would (HGET <prefix>:<queue>:<id> data). */
async function storedData(prefix: string, key: string): Promise<string | null> {
  return admin.hget(`${prefix}:${HOST_MESSAGE_QUEUE}:${hostMessageJobId(key)}`, "data");
}

describe("BullMQ host messenger (Redis mode)", () => {
  it("sends a key once: twice from one messenger, again from a second one on the same Redis", async () => {
    const prefix = uniqueBullPrefix();
    const sent: HostMessage[] = [];
    const logger = recordingLogger();
    const a = messenger({ prefix, transports: [recordingTransport(0, sent).transport], logger });
    const b = messenger({ prefix, transports: [recordingTransport(0, sent).transport], logger });
    a.send(message());
    a.send(message());
    b.send(message());
    await Promise.all([a.idle(), b.idle()]);
    // After delivery too: the key is kept (without its text), so a late repeat is not sent.
    b.send(message());
    await b.idle();
    await new Promise((r) => setTimeout(r, 100));
    expect(sent).toHaveLength(1);
    expect(sent[0]?.text).toContain(LINK);
    expect(logger.entries.filter((e) => e.message === "host message sent")).toHaveLength(1);
    expect(await a.queue.getJobCounts("completed")).toEqual({ completed: 1 });
    // The approval link left Redis with the delivery.
    const data = await storedData(prefix, "approval:h1:b_1");
    expect(data).not.toBeNull();
    expect(data).not.toContain("approve/");
    expect(JSON.parse(data ?? "{}")).toMatchObject({ key: "approval:h1:b_1", text: "" });
  });

  it("retries a transport that fails twice with exponential backoff, then sends once", async () => {
    const prefix = uniqueBullPrefix();
    const flaky = recordingTransport(2);
    const logger = recordingLogger();
    const m = messenger({ prefix, transports: [flaky.transport], logger, baseDelayMs: 50 });
    m.send(message());
    await m.idle();
    expect(flaky.calls).toHaveLength(3);
    expect(flaky.sent).toHaveLength(1);
    // BullMQ's exponential schedule: base, then twice base, as the in-process messenger.
    const [c1 = 0, c2 = 0, c3 = 0] = flaky.calls;
    expect(c2 - c1).toBeGreaterThanOrEqual(45);
    expect(c3 - c2).toBeGreaterThanOrEqual(95);
    expect(logger.entries.map((e) => [e.level, e.message, e.fields["attempt"]])).toEqual([
      ["warn", "host message failed; retrying", 1],
      ["warn", "host message failed; retrying", 2],
      ["info", "host message sent", 3],
    ]);
    expect(logger.entries[0]?.fields).toMatchObject({
      key: "approval:h1:b_1",
      transport: "rec",
      error: "peer down",
    });
  });

  it("keeps a message across a restart: a closed messenger's retry is delivered by the next", async () => {
    const prefix = uniqueBullPrefix();
    const logA = recordingLogger();
    const down = recordingTransport(99);
    const a = messenger({ prefix, transports: [down.transport], logger: logA, baseDelayMs: 300 });
    a.send(message());
    await waitFor(() => logA.entries.some((e) => e.message === "host message failed; retrying"), 10_000);
    await a.close();
    const jobId = hostMessageJobId("approval:h1:b_1");
    const probe = messenger({ prefix, transports: [], logger: recordingLogger(), worker: false });
    await waitFor(async () => (await probe.queue.getJobState(jobId)) === "delayed", 5_000);
    expect(down.calls).toHaveLength(1);

    // The "next process": nothing is sent to it, it finds the message in Redis.
    const up = recordingTransport(0);
    const logB = recordingLogger();
    messenger({ prefix, transports: [up.transport], logger: logB, baseDelayMs: 300 });
    await waitFor(async () => (await probe.queue.getJobState(jobId)) === "completed", 10_000);
    expect(up.sent.map((x) => x.text)).toEqual([`Approve or decline: ${LINK}`]);
    expect(logB.entries.find((e) => e.message === "host message sent")?.fields["attempt"]).toBe(2);
  });

  it("a message sent by a process with no worker waits in Redis for one", async () => {
    const prefix = uniqueBullPrefix();
    const producer = messenger({ prefix, transports: [], logger: recordingLogger(), worker: false });
    producer.send(message("approval:h1:b_2"));
    await producer.close();
    const up = recordingTransport(0);
    const consumer = messenger({ prefix, transports: [up.transport], logger: recordingLogger() });
    await waitFor(() => up.sent.length === 1, 10_000);
    expect(await consumer.queue.getJobState(hostMessageJobId("approval:h1:b_2"))).not.toBe("failed");
  });

  it("abandons after maxAttempts, loudly, and keeps no link in the failed job", async () => {
    const prefix = uniqueBullPrefix();
    const down = recordingTransport(99);
    const logger = recordingLogger();
    const m = messenger({ prefix, transports: [down.transport], logger, maxAttempts: 3, baseDelayMs: 10 });
    m.send(message());
    await m.idle();
    expect(down.calls).toHaveLength(3);
    expect(await m.queue.getJobState(hostMessageJobId("approval:h1:b_1"))).toBe("failed");
    expect(logger.entries.filter((e) => e.level === "warn")).toHaveLength(2);
    const errors = logger.entries.filter((e) => e.level === "error");
    expect(errors.map((e) => e.message)).toEqual(["host message abandoned"]);
    expect(errors[0]?.fields).toMatchObject({ key: "approval:h1:b_1", host_id: "h1", attempt: 3 });
    expect(await storedData(prefix, "approval:h1:b_1")).not.toContain("approve/");
    // The failed job lives no longer than the link (an hour here).
    const job = await m.queue.getJob(hostMessageJobId("approval:h1:b_1"));
    const keep = job?.opts.removeOnFail as { age: number } | undefined;
    expect(keep?.age).toBeGreaterThan(3_500);
    expect(keep?.age).toBeLessThanOrEqual(3_600);
  });

  it("does not send a message whose link expired before a worker took it", async () => {
    const prefix = uniqueBullPrefix();
    const t = recordingTransport(0);
    const logger = recordingLogger();
    const m = messenger({ prefix, transports: [t.transport], logger });
    m.send({ ...message(), expiresAt: Date.now() - 1 });
    await m.idle();
    expect(t.calls).toHaveLength(0);
    expect(logger.entries.filter((e) => e.level === "error").map((e) => e.message)).toEqual([
      "host message abandoned",
    ]);
  });

  it("reads a link's expiry on its clock (the one the approval deadline was set on)", async () => {
    // A business clock a year behind the real one: the link has an hour left on it.
    const at = Date.now() - 365 * 86_400_000;
    const prefix = uniqueBullPrefix();
    const t = recordingTransport(0);
    const logger = recordingLogger();
    const m = messenger({ prefix, transports: [t.transport], logger, clock: { now: () => at } });
    m.send({ ...message("approval:h1:b_4"), expiresAt: at + 3_600_000 });
    await m.idle();
    expect(t.sent).toHaveLength(1);
    const job = await m.queue.getJob(hostMessageJobId("approval:h1:b_4"));
    const keep = job?.opts.removeOnFail as { age: number } | undefined;
    expect(keep?.age).toBe(3_600);
  });

  it("delivers from this process when Redis cannot take the message", async () => {
    const t = recordingTransport(0);
    const logger = recordingLogger();
    const m = createBullmqHostMessenger({
      redisUrl: "redis://127.0.0.1:1",
      redisOptions: { retryStrategy: () => null, lazyConnect: true },
      prefix: "{unused}",
      transports: [t.transport],
      logger,
      worker: false,
    });
    m.send(message());
    await m.idle();
    await m.close();
    expect(t.sent).toHaveLength(1);
    expect(logger.entries.some((e) => e.message.startsWith("host message could not be queued"))).toBe(true);
  });

  it("the gateway's hostMessenger uses the queue when it has Redis (file transport)", async () => {
    const prefix = uniqueBullPrefix();
    const dir = mkdtempSync(join(tmpdir(), "host-messages-"));
    try {
      const m = hostMessenger(dir, {}, recordingLogger(), { url: redis.url, prefix });
      closers.push(() => m.close());
      m.send(message("approval:h1:b_3"));
      await m.idle();
      expect(readFileSync(join(dir, "host-messages.jsonl"), "utf8")).toContain(LINK);
      expect(await storedData(prefix, "approval:h1:b_3")).toContain('"key":"approval:h1:b_3"');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
