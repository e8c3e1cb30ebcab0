/**
 * One contract for the rule stores (src/booking/answers, SchCP §7.9 "Rules are kept by the
 * person's calendar"): memory, Redis and Redis Cluster (a host's keys in one slot). Add, list
 * (unexpired, oldest first), replace by jti, remove, the per-host cap under concurrent adds, and
 * hosts kept apart.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MemoryRuleStore } from "../../../src/booking/answers/memory-store.js";
import { MAX_RULES_PER_HOST } from "../../../src/booking/answers/port.js";
import type { RuleStore, StoredRule } from "../../../src/booking/answers/port.js";
import { RedisRuleStore } from "../../../src/booking/answers/redis-store.js";
import { openRedis, type RedisClient } from "../../../src/redis/client.js";
import { dropPrefix, startTestRedis, uniquePrefix, type TestRedis } from "../../support/redis.js";
import { startTestRedisCluster, type TestRedisCluster } from "../../support/redis-cluster.js";

const NOW = Date.parse("2026-12-07T10:00:00Z");
const S = NOW / 1000;

const rule = (jti: string, over: Partial<StoredRule["claims"]> = {}): StoredRule => ({
  jws: `h.${jti}.s`,
  claims: {
    iss: "urn:schcp:principal:jwk-thumbprint:owner",
    iat: S - 100,
    exp: S + 3600,
    jti,
    cnf: { jkt: "agent" },
    label: `Rule ${jti}`,
    ...over,
  },
});

interface Subject {
  readonly a: RuleStore;
  readonly b: RuleStore;
}

let redis: TestRedis;
let cluster: TestRedisCluster;
const clients: Array<{ client: RedisClient; prefix: string }> = [];

beforeAll(async () => {
  [redis, cluster] = await Promise.all([startTestRedis(), startTestRedisCluster()]);
}, 90_000);
afterAll(async () => {
  for (const { client, prefix } of clients) {
    await dropPrefix(client, prefix);
    client.disconnect();
  }
  await redis?.stop();
  await cluster?.stop();
});

function onRedis(url: string): Subject {
  const prefix = uniquePrefix("rules");
  const one = openRedis(url);
  const two = openRedis(url);
  clients.push({ client: one, prefix }, { client: two, prefix });
  return { a: new RedisRuleStore(one, prefix), b: new RedisRuleStore(two, prefix) };
}

const kinds: Array<[string, () => Subject]> = [
  [
    "memory",
    () => {
      const store = new MemoryRuleStore();
      return { a: store, b: store };
    },
  ],
  ["redis", () => onRedis(redis.url)],
  ["redis cluster", () => onRedis(cluster.url)],
];

describe.each(kinds)("rule store: %s", (_kind, make) => {
  it("keeps rules per host, lists them oldest first with their exact bytes, replaces by jti", async () => {
    const { a, b } = make();
    expect(await a.add("h1", rule("r-2", { iat: S - 10 }), NOW)).toBe("added");
    expect(await b.add("h1", rule("r-1", { iat: S - 50 }), NOW)).toBe("added");
    expect(await a.add("h2", rule("r-9"), NOW)).toBe("added");
    const listed = await b.list("h1", NOW);
    expect(listed.map((r) => r.claims.jti)).toEqual(["r-1", "r-2"]);
    expect(listed[0]?.jws).toBe("h.r-1.s");
    expect(listed[0]?.claims).toEqual(rule("r-1", { iat: S - 50 }).claims);
    expect(await a.add("h1", rule("r-2", { iat: S - 10, label: "Renamed" }), NOW)).toBe("replaced");
    expect((await a.list("h1", NOW)).find((r) => r.claims.jti === "r-2")?.claims.label).toBe("Renamed");
    expect((await a.list("h2", NOW)).map((r) => r.claims.jti)).toEqual(["r-9"]);
  });

  it("forgets a rule once it has expired (exp, no skew)", async () => {
    const { a, b } = make();
    await a.add("h1", rule("short", { exp: S + 60 }), NOW);
    await a.add("h1", rule("long"), NOW);
    expect((await b.list("h1", NOW + 59_999)).map((r) => r.claims.jti)).toEqual(["long", "short"]);
    expect((await b.list("h1", NOW + 60_000)).map((r) => r.claims.jti)).toEqual(["long"]);
  });

  it("removes by jti; removing what is not kept is false", async () => {
    const { a, b } = make();
    await a.add("h1", rule("r-1"), NOW);
    expect(await b.remove("h1", "r-1")).toBe(true);
    expect(await a.remove("h1", "r-1")).toBe(false);
    expect(await a.remove("h2", "r-1")).toBe(false);
    expect(await a.list("h1", NOW)).toEqual([]);
  });

  it("keeps at most MAX_RULES_PER_HOST, even under concurrent adds from two handles", async () => {
    const { a, b } = make();
    const outs = await Promise.all(
      Array.from({ length: MAX_RULES_PER_HOST + 20 }, (_, i) =>
        (i % 2 === 0 ? a : b).add("h1", rule(`r-${i}`), NOW),
      ),
    );
    expect(outs.filter((o) => o === "added")).toHaveLength(MAX_RULES_PER_HOST);
    expect(outs.filter((o) => o === "full")).toHaveLength(20);
    expect(await a.list("h1", NOW)).toHaveLength(MAX_RULES_PER_HOST);
    // Replacing a kept rule still works when full; an expired one makes room.
    expect(await a.add("h1", rule("r-0", { label: "again" }), NOW)).toBe("replaced");
  });
});
