/**
 * The key names of every Redis store, pinned byte for byte (docs/ARCHITECTURE.md, Redis layout
 * and scale): running deployments hold data under these names, so a change of how a store
 * builds them must leave every name as it was. Each case drives one store through its public
 * methods on a client that records the key of every command it sends (ioredis' own reading of
 * which arguments are keys, EVALSHA's and EVAL's KEYS included), and lists the names it must
 * have used, for a sample prefix and host. test/redis/key-names.test.ts runs the cases on one
 * server, key-names-cluster.test.ts on a Redis Cluster.
 */
import { Command } from "ioredis";
import { RedisLinkUseStore } from "../../src/booking/approval/links.js";
import { RedisNoticeBudget } from "../../src/booking/approval/notify.js";
import { RedisCalendarStateStore, type OwnEvent } from "../../src/booking/calendar/state.js";
import { RedisNoticeBook } from "../../src/booking/hosts/notices.js";
import { RedisRuleStore } from "../../src/booking/answers/redis-store.js";
import { RedisPublicPool } from "../../src/booking/public-pool/redis-store.js";
import { RedisSyntheticBackend } from "../../src/connectors/synthetic/index.js";
import type { SyntheticAppointment } from "../../src/connectors/synthetic/index.js";
import { redisKeyHashStore } from "../../src/edges/a2a/api-keys.js";
import { RedisOwnerAccountStore } from "../../src/edges/console/accounts-stores.js";
import { RedisConnectStateStore } from "../../src/edges/console/connect/state-store.js";
import { RedisSessionStore } from "../../src/edges/console/sessions.js";
import { RedisSignInLimiter } from "../../src/edges/console/sign-in-limit.js";
import { RedisEventDeduplicator } from "../../src/edges/inbound/square-webhooks.js";
import { RedisIdempotencyStore } from "../../src/edges/osbp/idempotency/redis.js";
import { osbpRedisKeys, sharedApprovalSecret } from "../../src/gateway/cli/mcp.js";
import { RedisSealedStore } from "../../src/gateway/credentials/redis-store.js";
import { RedisRefreshLock } from "../../src/gateway/credentials/refresh-lock.js";
import { RedisManagedHostStore } from "../../src/gateway/managed-hosts/redis-store.js";
import type { ManagedHostRecord } from "../../src/edges/console/managed-hosts.js";
import { RedisPacingGate } from "../../src/gateway/runtime/redis-pacing.js";
import { RedisRateLimiter } from "../../src/gateway/runtime/redis-rate-limit.js";
import { RedisPushStore } from "../../src/jobs/calendar-push/redis-store.js";
import type { PushEntry } from "../../src/jobs/calendar-push/types.js";
import type { RedisClient } from "../../src/redis/client.js";

/** The sample host of every case. */
export const HOST = "h1";

/**
 * A client that runs every command on `client` and adds the keys it names to `seen`
 * (MULTI and pipelines included; their commands are recorded as they are queued).
 */
export function recording(client: RedisClient, seen: Set<string>): RedisClient {
  return wrap(client, seen);
}

function wrap<T extends object>(target: T, seen: Set<string>): T {
  const proxy: T = new Proxy(target, {
    get(t, prop) {
      const value: unknown = Reflect.get(t, prop, t);
      if (typeof value !== "function" || typeof prop !== "string") return value;
      const fn = value as (...args: unknown[]) => unknown;
      return (...args: unknown[]) => {
        if (prop === "multi" || prop === "pipeline") return wrap(fn.apply(t, args) as object, seen);
        for (const key of new Command(prop, args as never[]).getKeys()) seen.add(String(key));
        const out = fn.apply(t, args);
        return out === t ? proxy : out;
      };
    },
  });
  return proxy;
}

export interface PinCase {
  readonly store: string;
  /** Drives the store on `redis` (a recording client), keys under `prefix`. */
  run(redis: RedisClient, prefix: string, raw: RedisClient): Promise<void>;
  /** The names it must use; `cluster` when the client is a Redis Cluster's. */
  keys(prefix: string, cluster: boolean): readonly string[];
}

const NOW = 1_700_000_000_000;

const own: OwnEvent = {
  calendarId: "c/1",
  eventId: "ev-1",
  idempotencyKey: "k-ev-1",
  serviceId: "cut",
  start: 0,
  end: 1,
  resourceIds: ["chair-1"],
} as unknown as OwnEvent;

const appointment: SyntheticAppointment = {
  id: "a1",
  idempotencyKey: "key-a1",
  fingerprint: "f",
  serviceId: "oil-change",
  start: 1_000,
  end: 1_045,
  occupiedUntil: 1_060,
  allocations: [{ resourceId: "bay-1", units: 1 }],
  status: "confirmed",
  partySize: 1,
  customer: { name: "Ada", phone: "+14165550100" },
  createdAt: 1,
  updatedAt: 1,
};

const managed = (updatedAt: number): ManagedHostRecord => ({
  id: HOST,
  owner: "own_a",
  source: "caldav",
  state: "draft",
  config: { id: HOST, name: "Host", timezone: "America/Toronto" },
  createdAt: 1000,
  updatedAt,
});

const push: PushEntry = {
  vendor: "google",
  calendarId: "c1",
  id: "ch-1",
  secret: "s",
  address: "https://example.test/push",
  obtainedAt: NOW,
  expiresAt: NOW + 3_600_000,
} as unknown as PushEntry;

export const PIN_CASES: readonly PinCase[] = [
  {
    store:
      "OSBP booking.create idempotency (edges/osbp/idempotency/redis.ts, as gateway/cli/mcp.ts opens it)",
    run: async (redis, p) => {
      const s = new RedisIdempotencyStore(redis, { prefix: osbpRedisKeys(p).idempotencyPrefix });
      const id = { scope: "org-1", key: "k-1" };
      const begun = await s.begin(id, "f", NOW);
      if (begun.kind === "started") await s.release({ id, fingerprint: "f", claim: begun.claim });
    },
    keys: (p) => [`${p}osbp:idempotency:osbp:idem:{org-1:k-1}`],
  },
  {
    store: "OSBP approval gate's secret (gateway/cli/mcp.ts)",
    run: async (redis, p) => {
      await sharedApprovalSecret(redis, osbpRedisKeys(p).approvalSecret);
    },
    keys: (p) => [`${p}osbp:approval-secret`],
  },
  {
    store: "approval link uses (booking/approval/links.ts)",
    run: async (redis, p) => {
      await new RedisLinkUseStore(redis, p).consume("n1", Date.now() + 60_000);
    },
    keys: (p) => [`${p}approval-link:n1`],
  },
  {
    store: "approval notice budget (booking/approval/notify.ts)",
    run: async (redis, p) => {
      await new RedisNoticeBudget(redis, p).count(HOST, NOW, 3_600_000);
    },
    keys: (p) => [`${p}{h1}:approval-notices:${NOW}`],
  },
  {
    store: "calendar sync state (booking/calendar/state.ts)",
    run: async (redis, p, raw) => {
      const s = new RedisCalendarStateStore(redis, p);
      await s.put(HOST, "c/1", { readUntil: 1, fullSyncAt: 1, events: { e1: [] } });
      await s.get(HOST, "c/1");
      await s.getEvents(HOST, "c/1", ["e1"]);
      await s.eventIds(HOST, "c/1");
      await s.getSeries(HOST, "c/1", ["u1"]);
      await s.getDays(HOST, "c/1", [20_000]);
      // The earlier format, migrated by the first getMeta.
      await raw.set(`${p}cal:state:h1:old`, JSON.stringify({ readUntil: 1, fullSyncAt: 1, events: {} }));
      await s.getMeta(HOST, "old");
      await s.putLayout(HOST, { days: [], conflicts: {} });
      await s.layout(HOST);
      await s.putReport({ hostId: HOST, calendarId: "c/1" } as never);
      await s.reports(HOST);
      await s.putOwn(HOST, own);
      await s.getOwn(HOST, "ev-1");
      await s.pendingOwn(HOST);
      await s.ownAmong(HOST, ["ev-1"]);
      await s.putDisplacements(HOST, {});
      await s.displacements(HOST);
    },
    keys: (p) => [
      `${p}cal2:{h1:c%2F1}:ev`,
      `${p}cal2:{h1:c%2F1}:series`,
      `${p}cal2:{h1:c%2F1}:days`,
      `${p}cal2:{h1:c%2F1}:meta`,
      `${p}cal2:{h1:old}:meta`,
      `${p}cal:state:h1:old`,
      `${p}cal2:{h1:old}:ev`,
      `${p}cal2:{h1:old}:series`,
      `${p}cal2:{h1:old}:days`,
      `${p}cal:layout:h1`,
      `${p}cal:reports:h1`,
      `${p}cal:own:h1`,
      `${p}cal:ownids:h1`,
      `${p}cal:ownids-built:h1`,
      `${p}cal:displaced:h1`,
    ],
  },
  {
    store: "upstream notices (booking/hosts/notices.ts)",
    run: async (redis, p) => {
      const book = new RedisNoticeBook(redis, p);
      await book.record("h/1", { vendor: "square", call: "x", sunset: "2030-01-01" }, NOW);
      await book.list("h/1");
    },
    keys: (p) => [`${p}upstream-notices:h%2F1`],
  },
  {
    store: "public pool (booking/public-pool/redis-store.ts)",
    run: async (redis, p) => {
      const pool = new RedisPublicPool(redis, p);
      const now = Date.now();
      await pool.take(
        HOST,
        { id: "p1", origin: "o1", until: now + 60_000 },
        { perHost: 5, perOrigin: 2 },
        now,
      );
      await pool.count(HOST, now);
      await pool.release(HOST, ["p1"], now);
    },
    keys: (p) => [`${p}{h1}:pub:places`, `${p}{h1}:pub:meta`, `${p}{h1}:pub:o:o1`],
  },
  {
    store: "rules (booking/answers/redis-store.ts)",
    run: async (redis, p) => {
      const rules = new RedisRuleStore(redis, p);
      const now = Date.now();
      const claims = {
        iss: "urn:schcp:principal:jwk-thumbprint:x",
        iat: Math.floor(now / 1000),
        exp: Math.floor(now / 1000) + 60,
        jti: "r-1",
        cnf: { jkt: "k" },
        label: "Anything",
      };
      await rules.add(HOST, { jws: "a.b.c", claims }, now);
      await rules.list(HOST, now);
      await rules.remove(HOST, "r-1");
      await rules.add(HOST, { jws: "a.b.c", claims }, now);
    },
    keys: (p) => [`${p}{h1}:rules`, `${p}{h1}:rules:exp`],
  },
  {
    store: "token vault (gateway/credentials/redis-store.ts)",
    run: async (redis, p) => {
      const vault = new RedisSealedStore(redis, p);
      await vault.write(HOST, "sealed");
      await vault.read(HOST);
      if ((await vault.list()).join() !== HOST) throw new Error("the vault lists another host");
    },
    keys: (p) => [`${p}credentials:{h1}`],
  },
  {
    store: "CalDAV Basic vault (edges/console/connect/basic-vault.ts, under <p>basic:)",
    run: async (redis, p) => {
      const basic = new RedisSealedStore(redis, `${p}basic:`);
      await basic.write(HOST, "sealed");
      await basic.delete(HOST);
    },
    keys: (p) => [`${p}basic:credentials:{h1}`],
  },
  {
    store: "OAuth refresh lock (gateway/credentials/refresh-lock.ts)",
    run: async (redis, p) => {
      const release = await new RedisRefreshLock(redis, p).acquire(HOST, 5_000);
      await release?.();
    },
    keys: (p) => [`${p}{h1}:oauth-refresh-lock`],
  },
  {
    store: "console accounts (edges/console/accounts-stores.ts)",
    run: async (redis, p) => {
      const accounts = new RedisOwnerAccountStore(redis, p);
      const account = { ownerId: "own_a", email: "a@example.test" } as never;
      await accounts.create(account);
      await accounts.get("own_a");
      await accounts.byEmail("a@example.test");
      await accounts.update(account);
      await accounts.list();
      await accounts.putInvitation("inv1", { email: "b@example.test" } as never, 60_000);
      await accounts.peekInvitation("inv1");
      await accounts.takeInvitation("inv1");
    },
    keys: (p) => [
      `${p}console:owner-email:a@example.test`,
      `${p}console:owner:own_a`,
      `${p}console:owners`,
      `${p}console:invitation:inv1`,
    ],
  },
  {
    store: "console sessions (edges/console/sessions.ts)",
    run: async (redis, p) => {
      const sessions = new RedisSessionStore(redis, p);
      await sessions.set("s1", { ownerId: "own_a" } as never, 60_000);
      await sessions.get("s1");
      await sessions.delete("s1");
    },
    keys: (p) => [`${p}console:session:s1`],
  },
  {
    store: "console sign-in failures (edges/console/sign-in-limit.ts)",
    run: async (redis, p) => {
      const limiter = new RedisSignInLimiter(redis, p);
      await limiter.attempt("o1");
      await limiter.succeeded("o1");
    },
    keys: (p) => [`${p}console:sign-in-failures:o1`],
  },
  {
    store: "Connect states (edges/console/connect/state-store.ts)",
    run: async (redis, p) => {
      const states = new RedisConnectStateStore(redis, p);
      await states.put(
        "st1",
        { provider: "google", hostId: HOST, sessionId: "s1", expiresAt: NOW } as never,
        60_000,
      );
      await states.take("st1");
    },
    keys: (p) => [`${p}connect:state:st1`],
  },
  {
    store: "managed hosts (gateway/managed-hosts/redis-store.ts)",
    run: async (redis, p) => {
      const hosts = new RedisManagedHostStore(redis, p);
      await hosts.create(managed(1), { drafts: 5, hosts: 5 });
      await hosts.list();
      await hosts.get(HOST);
      await hosts.listOwnedBy("own_a");
      await hosts.put(managed(2), 1);
      await hosts.version();
      await hosts.delete(HOST);
    },
    // On a cluster the counter and the owner index share the hash's slot (its hash tag), under
    // the prefix (they were `{<p>managed-hosts}:…`; the index is rebuilt from the hash once, as
    // for a store written before it existed, and the counter starts again, which replicas read
    // as one change).
    keys: (p, cluster) =>
      cluster
        ? [
            `${p}managed-hosts`,
            `${p}{${p}managed-hosts}:version`,
            `${p}{${p}managed-hosts}:owner:own_a`,
            `${p}{${p}managed-hosts}:indexed`,
          ]
        : [
            `${p}managed-hosts`,
            `${p}managed-hosts:version`,
            `${p}managed-hosts:owner:own_a`,
            `${p}managed-hosts:indexed`,
          ],
  },
  {
    store: "A2A API keys (edges/a2a/api-keys.ts)",
    run: async (redis, p) => {
      const keys = redisKeyHashStore(redis, p);
      await keys.set(HOST, "hash");
      await keys.get(HOST);
    },
    keys: (p) => [`${p}a2a:keys`],
  },
  {
    store: "push channels (jobs/calendar-push/redis-store.ts)",
    run: async (redis, p) => {
      const store = new RedisPushStore(redis, p);
      await store.put(HOST, push);
      await store.list(HOST);
      await store.get(HOST, "ch-1");
      await store.delete(HOST, "ch-1");
      const release = await store.lock(HOST, 5_000);
      await release?.();
    },
    keys: (p) => [`${p}{h1}:push`, `${p}{h1}:push-lock`],
  },
  {
    store: "shared rate limits (gateway/runtime/redis-rate-limit.ts, buckets as infra and A2A wire them)",
    run: async (redis, p) => {
      const policy = { capacity: 5, refillPerSec: 1 };
      await new RedisRateLimiter(redis, policy, p).take("agent1", NOW);
      await new RedisRateLimiter(redis, policy, p, "origin").take("o1", NOW);
      await new RedisRateLimiter(redis, policy, p, "a2a-origin").takeUpTo("o1", NOW, 2);
      await new RedisRateLimiter(redis, policy, p, "a2a-contact").take("+1555", NOW);
    },
    keys: (p) => [
      `${p}ratelimit:availability:agent1`,
      `${p}ratelimit:origin:o1`,
      `${p}ratelimit:a2a-origin:o1`,
      `${p}ratelimit:a2a-contact:+1555`,
    ],
  },
  {
    store: "upstream pacing (gateway/runtime/redis-pacing.ts)",
    run: async (redis, p) => {
      const gate = new RedisPacingGate(redis, p);
      const now = Date.now();
      await gate.defer("acct1", now + 1_000, now);
      await gate.notBefore("acct1", now);
    },
    keys: (p) => [`${p}pacing:acct1`],
  },
  {
    store: "Square webhook de-duplication (edges/inbound/square-webhooks.ts)",
    run: async (redis, p) => {
      await new RedisEventDeduplicator(redis, p).seen("ev1");
    },
    keys: (p) => [`${p}square:webhook-event:ev1`],
  },
  {
    store:
      "synthetic platform (connectors/synthetic/redis-backend.ts, under <p>synthetic: as infra wires it)",
    run: async (redis, p) => {
      const backend = new RedisSyntheticBackend({ client: redis, keyPrefix: `${p}synthetic:` });
      await backend.write(HOST, 0, appointment, true);
      await backend.read(HOST, { range: { start: 0, end: 5_000 }, ids: ["a1"], idempotencyKey: "key-a1" });
      await backend.putCode(HOST, "+1555", { code: "123456", expiresAt: NOW });
      await backend.getCode(HOST, "+1555");
      await backend.deleteCode(HOST, "+1555");
      await backend.admitSend(HOST, "+1555", NOW, { maxSends: 3, windowMs: 60_000 });
    },
    keys: (p) => [
      `${p}synthetic:{h1}:ver`,
      `${p}synthetic:{h1}:appt`,
      `${p}synthetic:{h1}:ends`,
      `${p}synthetic:{h1}:keys`,
      `${p}synthetic:{h1}:code:+1555`,
      `${p}synthetic:{h1}:sends:+1555`,
    ],
  },
];
