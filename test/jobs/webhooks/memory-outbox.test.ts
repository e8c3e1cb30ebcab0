import { afterEach, describe, expect, it } from "vitest";
import type { OutboundEvent } from "../../../src/booking/api.js";
import { createPublicFetch } from "../../../src/jobs/outbound/public-fetch.js";
import type { Deliver, DeliveryOutcome } from "../../../src/jobs/webhooks/deliver.js";
import { MemoryOutbox } from "../../../src/jobs/webhooks/memory-outbox.js";
import { createOutbox } from "../../../src/jobs/webhooks/outbox.js";
import { exponentialBackoff } from "../../../src/jobs/webhooks/retry-policy.js";
import {
  HOST_ID,
  ManualScheduler,
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
const policy = exponentialBackoff({ maxAttempts: 4, baseMs: 1000, factor: 2 });
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (closers.length > 0) await closers.pop()?.();
});

/** A deliver function answering from a script, recording what it was given. */
function scripted(outcomes: DeliveryOutcome[]): Deliver & { calls: OutboundEvent[] } {
  const calls: OutboundEvent[] = [];
  const fn = (e: OutboundEvent) => {
    calls.push(e);
    return Promise.resolve(outcomes.shift() ?? { ok: true as const, value: 200 });
  };
  return Object.assign(fn, { calls });
}
const fail500: DeliveryOutcome = {
  ok: false,
  error: { retryable: true, code: "http_status", message: "500", status: 500 },
};

/** Lets the attempts the scheduler just started settle. */
const settle = () => new Promise((r) => setTimeout(r, 0));

describe("in-process webhook queue (embedded default)", () => {
  it("retries a failing endpoint with backoff until it answers 2xx; every delivery verifies (§5.8)", async () => {
    const agent = await startAgent(discoveryKeys([key]), [500, 503, 404]);
    closers.push(agent.close);
    const scheduler = new ManualScheduler();
    const logger = recordingLogger();
    const outbox = createOutbox({
      mode: "memory",
      hosts,
      clock,
      logger,
      policy,
      scheduler,
      fetch: createPublicFetch({ allowPrivate: true }),
    });
    closers.push(() => outbox.close());

    await outbox.enqueue(outbound("e_retry", agent.url()));
    for (let i = 0; i < 4; i++) {
      scheduler.fireAll();
      await waitFor(() => agent.received.length === i + 1);
      await settle();
    }
    expect(agent.received).toHaveLength(4);
    expect(agent.received.every((r) => r.verified.ok)).toBe(true);
    // First attempt at once, then 1 s, 2 s, 4 s.
    expect(scheduler.delays).toEqual([0, 1000, 2000, 4000]);
    expect(scheduler.pending).toBe(0);
    // One operator log line per failed attempt, with what failed.
    const warns = logger.entries.filter((e) => e.level === "warn");
    expect(warns.map((w) => w.fields["status"])).toEqual([500, 503, 404]);
    expect(warns[0]?.fields).toMatchObject({
      event_id: "e_retry",
      host_id: HOST_ID,
      attempt: 1,
      max_attempts: 4,
      retry_in_ms: 1000,
      target: new URL(agent.url()).origin,
    });
    expect(logger.entries.some((e) => e.level === "error")).toBe(false);
  });

  it("gives up after maxAttempts and logs the abandonment", async () => {
    const deliver = scripted([fail500, fail500, fail500, fail500, fail500]);
    const scheduler = new ManualScheduler();
    const logger = recordingLogger();
    const outbox = new MemoryOutbox({ deliver, policy, scheduler, logger });
    await outbox.enqueue(outbound("e_dead", "https://agent.example/h"));
    for (let i = 0; i < 6; i++) {
      scheduler.fireAll();
      await settle();
    }
    expect(deliver.calls).toHaveLength(4);
    expect(outbox.size).toBe(0);
    expect(logger.entries.filter((e) => e.level === "warn")).toHaveLength(3);
    expect(logger.entries.filter((e) => e.level === "error")).toEqual([
      expect.objectContaining({ message: expect.stringContaining("attempts exhausted") as string }),
    ]);
  });

  it("does not retry what no retry can fix (a non-public callback)", async () => {
    const deliver = scripted([
      {
        ok: false,
        error: { retryable: false, code: "non_public_address", message: "127.0.0.1 is not public" },
      },
    ]);
    const scheduler = new ManualScheduler();
    const logger = recordingLogger();
    const outbox = new MemoryOutbox({ deliver, policy, scheduler, logger });
    await outbox.enqueue(outbound("e_ssrf", "https://evil.example/h"));
    scheduler.fireAll();
    await settle();
    expect(deliver.calls).toHaveLength(1);
    expect(scheduler.pending).toBe(0);
    expect(logger.entries.at(-1)).toMatchObject({ level: "error", fields: { code: "non_public_address" } });
  });

  it("enqueues an event once per event_id (pending or already delivered)", async () => {
    const deliver = scripted([]);
    const scheduler = new ManualScheduler();
    const outbox = new MemoryOutbox({ deliver, policy, scheduler, logger: recordingLogger() });
    await outbox.enqueue(outbound("e_once", "https://agent.example/h"));
    await outbox.enqueue(outbound("e_once", "https://agent.example/h"));
    scheduler.fireAll();
    await settle();
    await outbox.enqueue(outbound("e_once", "https://agent.example/h"));
    scheduler.fireAll();
    await settle();
    expect(deliver.calls).toHaveLength(1);
  });

  it("refuses (and logs) an event that is not a valid WebhookEvent or names another host", async () => {
    const deliver = scripted([]);
    const logger = recordingLogger();
    const scheduler = new ManualScheduler();
    const outbox = new MemoryOutbox({ deliver, policy, scheduler, logger });
    const valid = outbound("e_x", "https://agent.example/h");
    await outbox.enqueue({ ...valid, event: { ...valid.event, type: "hold.exploded" } });
    await outbox.enqueue({ ...valid, event: { ...valid.event, payment: { card: "4111" } } });
    await outbox.enqueue({ ...valid, hostId: "fades-on-queen" });
    await outbox.enqueue({ ...valid, callbackUrl: "not a url" });
    const { hold: _hold, ...noHold } = valid.event;
    await outbox.enqueue({ ...valid, event: noHold }); // hold.expired carries the hold
    scheduler.fireAll();
    await settle();
    expect(deliver.calls).toHaveLength(0);
    expect(logger.entries.map((e) => e.fields["code"])).toEqual([
      "invalid_event",
      "invalid_event",
      "host_mismatch",
      "invalid_callback_url",
      "invalid_event",
    ]);
  });

  it("drains on close: a waiting retry gets one last attempt at once; later enqueues are dropped", async () => {
    const deliver = scripted([fail500, fail500]);
    const scheduler = new ManualScheduler();
    const logger = recordingLogger();
    const outbox = new MemoryOutbox({ deliver, policy, scheduler, logger });
    await outbox.enqueue(outbound("e_a", "https://agent.example/h"));
    await outbox.enqueue(outbound("e_b", "https://agent.example/h"));
    scheduler.fireAll(); // both fail once: e_a (500), e_b (500)
    await settle();
    expect(scheduler.pending).toBe(2);
    await outbox.close(); // final attempts: both now succeed
    expect(deliver.calls.map((c) => c.event["event_id"])).toEqual(["e_a", "e_b", "e_a", "e_b"]);
    expect(scheduler.pending).toBe(0);
    expect(outbox.size).toBe(0);
    await outbox.enqueue(outbound("e_c", "https://agent.example/h"));
    expect(deliver.calls).toHaveLength(4);
    expect(logger.entries.at(-1)).toMatchObject({ level: "error", fields: { event_id: "e_c" } });
  });

  it("logs what is still undelivered after the drain", async () => {
    const deliver = scripted([fail500, fail500]);
    const scheduler = new ManualScheduler();
    const logger = recordingLogger();
    const outbox = new MemoryOutbox({ deliver, policy, scheduler, logger });
    await outbox.enqueue(outbound("e_a", "https://agent.example/h"));
    scheduler.fireAll();
    await settle();
    await outbox.close();
    expect(logger.entries.at(-1)).toMatchObject({
      level: "error",
      message: expect.stringContaining("dropped") as string,
      fields: { event_id: "e_a", attempts: 2 },
    });
    // The shutdown attempt promises no retry it will not make.
    expect(logger.entries.filter((e) => e.level === "warn")).toHaveLength(1);
  });

  it("treats a deliver function that throws as a retryable failure", async () => {
    let calls = 0;
    const deliver: Deliver = () => {
      calls++;
      return calls === 1 ? Promise.reject(new Error("boom")) : Promise.resolve({ ok: true, value: 200 });
    };
    const scheduler = new ManualScheduler();
    const outbox = new MemoryOutbox({ deliver, policy, scheduler, logger: recordingLogger() });
    await outbox.enqueue(outbound("e_t", "https://agent.example/h"));
    scheduler.fireAll();
    await settle();
    scheduler.fireAll();
    await settle();
    expect(calls).toBe(2);
    expect(outbox.size).toBe(0);
  });
});
