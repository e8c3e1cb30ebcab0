/**
 * One contract for the public booking pool's stores (src/booking/public-pool): memory, Redis
 * (a prefix of its own) and Redis Cluster (a host's keys in one slot). The count is taken and
 * added in one atomic step: 100 takes at once, from two handles on the same Redis (two
 * processes), let exactly the cap through, never more.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MemoryPublicPool } from "../../../src/booking/public-pool/memory-store.js";
import type { PublicPoolStore } from "../../../src/booking/public-pool/port.js";
import { RedisPublicPool } from "../../../src/booking/public-pool/redis-store.js";
import { openRedis, type RedisClient } from "../../../src/redis/client.js";
import { dropPrefix, startTestRedis, uniquePrefix, type TestRedis } from "../../support/redis.js";
import { startTestRedisCluster, type TestRedisCluster } from "../../support/redis-cluster.js";

const HOUR = 3_600_000;
const NOW = Date.parse("2026-12-07T10:00:00Z");
const caps = { perHost: 12, perOrigin: 4 };

interface Subject {
  readonly a: PublicPoolStore;
  /** Another handle on the same storage (another process); the same object in memory. */
  readonly b: PublicPoolStore;
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
  const prefix = uniquePrefix("pubpool");
  const one = openRedis(url);
  const two = openRedis(url);
  clients.push({ client: one, prefix }, { client: two, prefix });
  return { a: new RedisPublicPool(one, prefix), b: new RedisPublicPool(two, prefix) };
}

const kinds: Array<[string, () => Subject]> = [
  [
    "memory",
    () => {
      const pool = new MemoryPublicPool();
      return { a: pool, b: pool };
    },
  ],
  ["redis", () => onRedis(redis.url)],
  ["redis cluster", () => onRedis(cluster.url)],
];

describe.each(kinds)("public booking pool store: %s", (_kind, make) => {
  it("100 takes at once from 100 origins: exactly perHost get a place; the refusals name the cap and its places", async () => {
    const { a, b } = make();
    const outs = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        (i % 2 === 0 ? a : b).take(
          "h1",
          { id: `h_${i}`, origin: `o${i}`, until: NOW + 48 * HOUR },
          caps,
          NOW,
        ),
      ),
    );
    expect(outs.filter((o) => o.ok)).toHaveLength(caps.perHost);
    const refused = outs.filter((o) => !o.ok);
    expect(refused).toHaveLength(100 - caps.perHost);
    for (const r of refused) {
      if (r.ok) continue;
      expect(r.error.scope).toBe("host");
      expect(r.error.limit).toBe(caps.perHost);
      expect(r.error.places).toHaveLength(caps.perHost);
      expect(r.error.places.every((p) => p.takenAt === NOW)).toBe(true);
      expect(r.error.earliestUntil).toBe(NOW + 48 * HOUR);
    }
    expect(await a.count("h1", NOW)).toBe(caps.perHost);
    // Another host's pool is its own.
    expect((await b.take("h2", { id: "h_x", origin: "o1", until: NOW + HOUR }, caps, NOW)).ok).toBe(true);
  });

  it("one origin gets perOrigin places; a place taken again changes nothing; release and lapse free places", async () => {
    const { a, b } = make();
    const take = (s: PublicPoolStore, id: string, origin: string, until = NOW + 2 * HOUR, now = NOW) =>
      s.take("h1", { id, origin, until }, caps, now);
    const outs = await Promise.all(
      Array.from({ length: 10 }, (_, i) => take(i % 2 ? a : b, `p${i}`, "same")),
    );
    const granted = outs.flatMap((o, i) => (o.ok ? [`p${i}`] : []));
    expect(granted).toHaveLength(caps.perOrigin);
    const refused = outs.find((o) => !o.ok);
    expect(refused !== undefined && !refused.ok && refused.error.scope).toBe("origin");
    // The same id again (a retried booking) keeps its one place.
    expect((await take(a, granted[0]!, "same")).ok).toBe(true);
    expect(await a.count("h1", NOW)).toBe(caps.perOrigin);
    // Released: the origin has room again.
    await b.release("h1", [granted[0]!], NOW);
    expect((await take(a, "q1", "same")).ok).toBe(true);
    expect((await take(a, "q2", "same")).ok).toBe(false);
    // Past `until` every place has lapsed.
    const later = NOW + 3 * HOUR;
    expect((await take(b, "q3", "same", later + HOUR, later)).ok).toBe(true);
    expect(await a.count("h1", later)).toBe(1);
  });

  it("a cap of 0 refuses everyone", async () => {
    const { a } = make();
    const out = await a.take(
      "h1",
      { id: "z", origin: "o", until: NOW + HOUR },
      { perHost: 0, perOrigin: 4 },
      NOW,
    );
    expect(out.ok).toBe(false);
  });
});
