/**
 * Every Redis store outside the hold store, on a real Redis Cluster: three masters
 * with a replica each. Items are spread over several hosts, owners and ids so their keys land
 * on different shards; a store that sent a multi-key command, a MULTI or a script naming keys
 * of several slots would fail here with CROSSSLOT, and a SCAN on one node would miss keys.
 */
import { randomBytes } from "node:crypto";
import { Queue } from "bullmq";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createA2aApiKeys, redisKeyHashStore } from "../../src/edges/a2a/api-keys.js";
import { RedisLinkUseStore } from "../../src/booking/approval/links.js";
import { RedisCalendarStateStore } from "../../src/booking/calendar/state.js";
import { RedisNoticeBook } from "../../src/booking/hosts/notices.js";
import { RedisSyntheticBackend } from "../../src/connectors/synthetic/index.js";
import { RedisOwnerAccountStore } from "../../src/edges/console/accounts-stores.js";
import { RedisSessionStore, Sessions } from "../../src/edges/console/sessions.js";
import { RedisSignInLimiter } from "../../src/edges/console/sign-in-limit.js";
import { RedisSealedStore } from "../../src/gateway/credentials/redis-store.js";
import { RedisRateLimiter } from "../../src/gateway/runtime/redis-rate-limit.js";
import { connectClient, createClient } from "../../src/redis/connection.js";
import { RedisPushStore } from "../../src/jobs/calendar-push/redis-store.js";
import { bullmqCalendarSyncQueue, CALENDAR_SYNC_QUEUE } from "../../src/jobs/calendar-sync/queue.js";
import { RedisTaskLock } from "../../src/jobs/maintenance/redis-lock.js";
import { createBullmqHostMessenger, type HostMessage } from "../../src/jobs/outbox/index.js";
import { createOutbox } from "../../src/jobs/webhooks/outbox.js";
import { exponentialBackoff } from "../../src/jobs/webhooks/retry-policy.js";
import { createPublicFetch } from "../../src/jobs/outbound/public-fetch.js";
import { RedisIdempotencyStore } from "../../src/edges/osbp/idempotency/redis.js";
import { openRedis, type RedisClient } from "../../src/redis/client.js";
import { backendContract } from "../connectors/synthetic/backend-contract.js";
import {
  HOST_ID,
  discoveryKeys,
  fakeHosts,
  hostKey,
  outbound,
  recordingLogger,
  startAgent,
  waitFor,
} from "../jobs/support.js";
import { dropPrefix, uniquePrefix } from "../support/redis.js";
import { startTestRedisCluster, type TestRedisCluster } from "../support/redis-cluster.js";
import { systemClock } from "../../src/protocol/clock.js";

let cluster: TestRedisCluster;
let client: RedisClient;
const prefixes: string[] = [];
const closers: Array<() => Promise<void>> = [];

beforeAll(async () => {
  cluster = await startTestRedisCluster();
  client = createClient({ url: cluster.url });
  await connectClient(client, cluster.url);
}, 60_000);
afterEach(async () => {
  while (closers.length > 0) await closers.pop()?.();
});
afterAll(async () => {
  for (const p of prefixes) await dropPrefix(client, p);
  await client.quit();
  await cluster.stop();
});

function prefix(label: string): string {
  const p = uniquePrefix(label);
  prefixes.push(p);
  return p;
}

/** A BullMQ prefix: one hash tag, so a queue's keys share a slot (dropped with the others). */
function bullPrefix(): string {
  const p = `{test-cluster-${randomBytes(6).toString("hex")}}`;
  prefixes.push(p);
  return p;
}

/** The masters (by address) that own these keys: more than one shows the items spread. */
async function shardsOf(keys: readonly string[]): Promise<Set<number>> {
  const slots = await Promise.all(keys.map((k) => client.cluster("KEYSLOT", k)));
  const ranges = (await client.cluster("SLOTS")) as unknown as Array<[number, number, [string, number]]>;
  return new Set(
    slots.map((slot) => {
      const range = ranges.find(([from, to]) => slot >= from && slot <= to);
      if (range === undefined) throw new Error(`slot ${slot} has no master`);
      return range[2][1];
    }),
  );
}

const ids = (n: number, label: string) => Array.from({ length: n }, (_, i) => `${label}-${i}`);

describe("console stores on a Redis Cluster", () => {
  it("owner accounts: create, list (owners on several shards), update, invitations", async () => {
    const p = prefix("accounts");
    const store = new RedisOwnerAccountStore(client, p);
    const owners = ids(12, "own");
    expect(await shardsOf(owners.map((id) => `${p}console:owner:${id}`))).toHaveProperty("size", 3);
    for (const [i, ownerId] of owners.entries()) {
      expect(await store.create({ ownerId, email: `${ownerId}@example.test`, createdAt: i })).toBe("ok");
    }
    expect(await store.create({ ownerId: "other", email: "own-3@example.test", createdAt: 0 })).toBe(
      "exists",
    );
    expect((await store.list()).map((a) => a.ownerId).sort()).toEqual([...owners].sort());
    expect((await store.byEmail("own-5@example.test"))?.ownerId).toBe("own-5");
    await store.update({ ownerId: "own-5", email: "own-5@example.test", createdAt: 5, disabled: true });
    expect((await store.get("own-5"))?.disabled).toBe(true);

    const invitation = { ownerId: "own-1", email: "own-1@example.test", expiresAt: Date.now() + 60_000 };
    for (const key of ids(6, "inv")) await store.putInvitation(key, invitation, 60_000);
    expect(await store.peekInvitation("inv-2")).toEqual(invitation);
    const takes = await Promise.all([store.takeInvitation("inv-4"), store.takeInvitation("inv-4")]);
    expect(takes.filter((t) => t !== undefined)).toHaveLength(1);
  });

  it("sessions and the sign-in limiter, from two processes' clients", async () => {
    const p = prefix("sessions");
    const other = createClient({ url: cluster.url });
    await connectClient(other, cluster.url);
    closers.push(() => other.quit().then(() => undefined));
    const policy = { idleMs: 600_000, absoluteMs: 3_600_000 };
    const a = new Sessions(new RedisSessionStore(client, p), systemClock, policy);
    const b = new Sessions(new RedisSessionStore(other, p), systemClock, policy);
    const made = await Promise.all(ids(8, "s").map(() => a.create()));
    for (const { id, session } of made) expect(await b.use(id)).toMatchObject({ csrf: session.csrf });
    await b.end(made[0]?.id ?? "");
    expect(await a.use(made[0]?.id)).toBeUndefined();

    const limit = new RedisSignInLimiter(client, p, { maxFailures: 2, windowMs: 60_000 });
    const twin = new RedisSignInLimiter(other, p, { maxFailures: 2, windowMs: 60_000 });
    for (const origin of ids(4, "203.0.113")) {
      // Counted before the check, on whichever shard the origin's key lies: 2 of 6 go on.
      const waits = await Promise.all([limit, twin, limit, twin, limit, twin].map((l) => l.attempt(origin)));
      expect(waits.filter((w) => w === 0)).toHaveLength(2);
      expect(await twin.attempt(origin)).toBeGreaterThan(0);
    }
  });

  it("the credentials vault lists every host's record by SCAN on every master", async () => {
    const p = prefix("vault");
    const store = new RedisSealedStore(client, p);
    const hosts = ids(15, "host");
    expect(await shardsOf(hosts.map((h) => store.key(h)))).toHaveProperty("size", 3);
    for (const h of hosts) await store.write(h, `sealed-${h}`);
    expect(await store.list()).toEqual([...hosts].sort());
    await store.delete("host-7");
    expect(await store.list()).not.toContain("host-7");
    expect(await store.read("host-8")).toBe("sealed-host-8");
  });
});

describe("gateway-wide stores on a Redis Cluster", () => {
  it("rate limiters: one bucket per agent key, spread over the shards", async () => {
    const p = prefix("rate");
    const limiter = new RedisRateLimiter(client, { capacity: 2, refillPerSec: 0.001 }, p);
    const origin = new RedisRateLimiter(client, { capacity: 1, refillPerSec: 0.001 }, p, "origin");
    const agents = ids(9, "agent");
    expect(await shardsOf(agents.map((a) => `${p}ratelimit:availability:${a}`))).toHaveProperty("size", 3);
    const now = Date.now();
    for (const agent of agents) {
      const takes = await Promise.all([0, 1, 2].map(() => limiter.take(agent, now)));
      expect(takes.filter((t) => t.ok)).toHaveLength(2);
      expect((await origin.take(agent, now)).ok).toBe(true);
      expect((await origin.take(agent, now)).ok).toBe(false);
    }
  });

  it("OSBP idempotency: keys on every shard, one begin wins each", async () => {
    const store = new RedisIdempotencyStore(client, { prefix: prefix("osbp") });
    const keys = ids(12, "idem").map((key) => ({ scope: "org", key }));
    expect(await shardsOf(keys.map((k) => store.keyOf(k)))).toHaveProperty("size", 3);
    const now = Date.now();
    for (const id of keys) {
      const [x, y] = await Promise.all([store.begin(id, "h1", now), store.begin(id, "h1", now)]);
      expect([x.kind, y.kind].filter((k) => k === "started")).toHaveLength(1);
      const attempt = { id, fingerprint: "h1", claim: "h1" };
      await store.settle(attempt, { id: `r-${id.key}`, booking_id: id.key, text: "booked" }, now + 1);
      expect((await store.begin(id, "h1", now + 2)).kind).not.toBe("started");
    }
    await store.release({ id: { scope: "org", key: "idem-0" }, fingerprint: "other", claim: "other" });
  });

  it("approval link uses, notices, calendar state, A2A keys and calendar push entries per host", async () => {
    const p = prefix("per-host");
    const hosts = ids(9, "h");
    const links = new RedisLinkUseStore(client, p);
    const notices = new RedisNoticeBook(client, p);
    const state = new RedisCalendarStateStore(client, p);
    const keys = createA2aApiKeys(redisKeyHashStore(client, p));
    const push = new RedisPushStore(client, p);
    for (const hostId of hosts) {
      const nonce = `n-${hostId}`;
      const uses = await Promise.all([
        links.consume(nonce, Date.now() + 60_000),
        links.consume(nonce, Date.now() + 60_000),
      ]);
      expect(uses.filter(Boolean)).toHaveLength(1);

      await notices.record(hostId, { vendor: "square", call: "ListBookings", sunset: "2027-01-01" }, 1000);
      await notices.record(hostId, { vendor: "square", call: "ListBookings", sunset: "2027-01-01" }, 2000);
      expect(await notices.list(hostId)).toHaveLength(1);

      await state.putReport({ hostId, calendarId: "c1", at: 1, ok: true } as never);
      expect((await state.reports(hostId)).map((r) => r.calendarId)).toEqual(["c1"]);
      await state.putDisplacements(hostId, {});
      expect(await state.displacements(hostId)).toEqual({});

      const issued = await keys.issue(hostId);
      expect(await keys.verify(hostId, issued)).toBe(true);
      expect(await keys.verify(hosts[(hosts.indexOf(hostId) + 1) % hosts.length] ?? "", issued)).toBe(false);

      const entry = {
        vendor: "google",
        calendarId: "c1",
        id: `ch-${hostId}`,
        secret: "s",
        address: "https://gw.example/push",
        obtainedAt: 1,
        expiresAt: 2,
      } as never;
      await push.put(hostId, entry);
      expect(await push.get(hostId, `ch-${hostId}`)).toMatchObject({ id: `ch-${hostId}` });
      const release = await push.lock(hostId, 10_000);
      expect(release).toBeDefined();
      expect(await push.lock(hostId, 10_000)).toBeUndefined();
      await release?.();
      expect(await push.lock(hostId, 10_000)).toBeDefined();
    }
  });
});

backendContract("RedisSyntheticBackend on a Redis Cluster", async () => {
  const backend = await RedisSyntheticBackend.connect(cluster.url, prefix("synthetic"));
  return { backend, cleanup: () => backend.close() };
});

describe("BullMQ and the task lock on a Redis Cluster", () => {
  it("the webhook outbox delivers a job", async () => {
    const key = hostKey("cluster-key");
    const agent = await startAgent(discoveryKeys([key]));
    closers.push(agent.close);
    const outbox = createOutbox({
      mode: "bullmq",
      redisUrl: cluster.url,
      prefix: bullPrefix(),
      hosts: fakeHosts({ [HOST_ID]: [key] }),
      clock: { now: () => Date.now() },
      logger: recordingLogger(),
      policy: exponentialBackoff({ maxAttempts: 2, baseMs: 20, factor: 2 }),
      fetch: createPublicFetch({ allowPrivate: true }),
    });
    closers.push(() => outbox.close());
    await outbox.enqueue(outbound("e_cluster_1", agent.url()));
    await waitFor(() => agent.received.length >= 1, 15_000);
    expect(agent.received[0]?.verified.ok).toBe(true);
  });

  it("the host messenger delivers a message once", async () => {
    const sent: HostMessage[] = [];
    const m = createBullmqHostMessenger({
      redisUrl: cluster.url,
      prefix: bullPrefix(),
      baseDelayMs: 20,
      logger: recordingLogger(),
      transports: [{ name: "rec", accepts: () => true, send: (x) => Promise.resolve(void sent.push(x)) }],
    });
    closers.push(() => m.close());
    const message: HostMessage = {
      to: { email: "owner@example.test" },
      subject: "Booking request",
      text: "Approve: https://gw.example/approve/x",
      key: "approval:h1:b_1",
      hostId: "h1",
      expiresAt: Date.now() + 3_600_000,
    };
    m.send(message);
    m.send(message);
    await m.idle();
    await waitFor(() => sent.length >= 1, 15_000);
    expect(sent).toHaveLength(1);
  });

  it("the calendar-sync queue runs a scheduled host", async () => {
    const p = bullPrefix();
    const runs: string[] = [];
    const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
    const q = bullmqCalendarSyncQueue(
      { redisUrl: cluster.url, prefix: p },
      [],
      (hostId) => Promise.resolve(void runs.push(hostId)),
      quiet,
    );
    const connection = openRedis(cluster.url, { redisOptions: { maxRetriesPerRequest: null } });
    const inspect = new Queue(CALENDAR_SYNC_QUEUE, { connection, prefix: p });
    try {
      await q.add({ hostId: "ana", everyMs: 60_000 });
      await waitFor(() => runs.includes("ana"), 15_000);
      expect((await inspect.getJobSchedulers()).map((s) => s.key)).toEqual(["calendar:ana"]);
      await q.remove("ana");
      expect(await inspect.getJobSchedulers()).toEqual([]);
    } finally {
      await q.close();
      await inspect.close();
      connection.disconnect();
    }
  });

  it("the maintenance task lock: one holder, renewable by it only", async () => {
    const p = bullPrefix();
    const a = new RedisTaskLock({ redisUrl: cluster.url, prefix: `${p}:lock:` });
    const b = new RedisTaskLock({ redisUrl: cluster.url, prefix: `${p}:lock:` });
    closers.push(
      () => a.close(),
      () => b.close(),
    );
    for (const name of ids(4, "task")) {
      const [x, y] = await Promise.all([a.acquire(name, 10_000), b.acquire(name, 10_000)]);
      const winner = x ?? y;
      expect([x, y].filter((l) => l !== null)).toHaveLength(1);
      expect(await winner?.renew(10_000)).toBe(true);
    }
  });
});
