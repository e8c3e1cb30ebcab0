/**
 * The push store's contract, against the memory twin and a real Redis (REDIS_URL, this run's
 * own key prefix), and the reason it is shared: two gateway processes on one Redis make one
 * channel for a host, not two, and either one authenticates its notifications.
 */
import type { RedisClient } from "../../../src/redis/client.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectClient, createClient } from "../../../src/redis/connection.js";
import {
  MemoryPushStore,
  RedisPushStore,
  startPushLifecycle,
  type PushEntry,
  type PushProvider,
  type PushStore,
} from "../../../src/jobs/calendar-push/index.js";
import { dropPrefix, startTestRedis, uniquePrefix, type TestRedis } from "../../support/redis.js";
import { ManualClock, recordingLogger } from "./support.js";

const NOW = Date.parse("2026-12-03T07:00:00Z");
const entry = (id: string, calendarId = "primary"): PushEntry => ({
  vendor: "microsoft",
  calendarId,
  id,
  secret: `secret-${id}`,
  address: "https://gw.example/push/microsoft/bea",
  obtainedAt: NOW,
  expiresAt: NOW + 86_400_000,
});

let redis: TestRedis;
let client: RedisClient;
const prefix = uniquePrefix("push");

beforeAll(async () => {
  redis = await startTestRedis();
  client = createClient({ url: redis.url });
  await connectClient(client, redis.url);
});
afterAll(async () => {
  await dropPrefix(client, prefix);
  await client.quit();
  await redis.stop();
});

describe.each([
  ["memory", () => new MemoryPushStore()],
  ["redis", () => new RedisPushStore(client, `${prefix}${Math.random().toString(36).slice(2)}:`)],
] as Array<[string, () => PushStore]>)("%s push store", (_name, make) => {
  it("keeps entries per host, by notification id", async () => {
    const store = make();
    await store.put("bea", entry("s1"));
    await store.put("bea", entry("s2", "work"));
    await store.put("cid", entry("s3"));
    expect((await store.list("bea")).map((e) => e.id).sort()).toEqual(["s1", "s2"]);
    expect(await store.get("bea", "s2")).toEqual(entry("s2", "work"));
    expect(await store.get("bea", "s3")).toBeUndefined();
    await store.put("bea", { ...entry("s1"), expiresAt: NOW + 2 * 86_400_000 });
    expect((await store.get("bea", "s1"))?.expiresAt).toBe(NOW + 2 * 86_400_000);
    await store.delete("bea", "s1");
    expect((await store.list("bea")).map((e) => e.id)).toEqual(["s2"]);
  });

  it("one holder of a host's lock at a time; released, it can be taken again", async () => {
    const store = make();
    const release = await store.lock("bea", 10_000);
    expect(release).toBeTypeOf("function");
    expect(await store.lock("bea", 10_000)).toBeUndefined();
    const other = await store.lock("cid", 10_000);
    expect(other).toBeTypeOf("function");
    await release?.();
    const again = await store.lock("bea", 10_000);
    expect(again).toBeTypeOf("function");
    await again?.();
    await other?.();
  });
});

describe("two processes on one Redis", () => {
  it("open one subscription for a host between them; both see it", async () => {
    const shared = `${prefix}shared:`;
    let opened = 0;
    const provider: PushProvider = {
      vendor: "microsoft",
      async open({ calendarId, address, secret }) {
        opened++;
        await new Promise((r) => setTimeout(r, 20)); // an upstream round trip
        return { ok: true, value: { ...entry(`sub-${opened}`, calendarId), address, secret } };
      },
      close: () => Promise.resolve({ ok: true, value: undefined }),
    };
    const host = {
      hostId: "bea",
      calendarIds: ["primary"],
      address: "https://gw.example/push/microsoft/bea",
      provider,
      syncEveryMs: 300_000,
    };
    const clockA = new ManualClock(NOW);
    const clockB = new ManualClock(NOW);
    const a = startPushLifecycle({
      hosts: [host],
      store: new RedisPushStore(client, shared),
      logger: recordingLogger(),
      clock: clockA,
      timers: clockA,
    });
    const b = startPushLifecycle({
      hosts: [host],
      store: new RedisPushStore(client, shared),
      logger: recordingLogger(),
      clock: clockB,
      timers: clockB,
    });
    // Started together: one takes the host's lock and opens; the other waits its turn.
    await Promise.all([a.ready, b.ready]);
    expect(opened).toBe(1);
    expect((await new RedisPushStore(client, shared).list("bea")).map((e) => e.id)).toEqual(["sub-1"]);
    // The one that waited looks again, finds the subscription, and arms the same renewal.
    await clockA.advance(30_000);
    await clockB.advance(30_000);
    expect(opened).toBe(1);
    expect(clockA.nextAt()).toBe(NOW + 86_400_000 - 3_600_000);
    expect(clockB.nextAt()).toBe(clockA.nextAt());
    await a.close();
    await b.close();
    // A shared store's channels outlive a process: close() stops none.
    expect(await new RedisPushStore(client, shared).list("bea")).toHaveLength(1);
  });

  it("a process that finds the lock taken looks again shortly instead of opening a second one", async () => {
    const shared = `${prefix}locked:`;
    const store = new RedisPushStore(client, shared);
    const held = await store.lock("bea", 60_000);
    let opened = 0;
    const clock = new ManualClock(NOW);
    const lifecycle = startPushLifecycle({
      hosts: [
        {
          hostId: "bea",
          calendarIds: ["primary"],
          address: "https://gw.example/push/microsoft/bea",
          provider: {
            vendor: "microsoft",
            open: () => (opened++, Promise.resolve({ ok: false, error: { code: "x", message: "x" } })),
            close: () => Promise.resolve({ ok: true, value: undefined }),
          },
          syncEveryMs: 300_000,
        },
      ],
      store,
      logger: recordingLogger(),
      clock,
      timers: clock,
    });
    await lifecycle.ready;
    expect(opened).toBe(0);
    expect(clock.nextAt()).toBe(NOW + 30_000);
    await held?.();
    await lifecycle.close();
  });
});
