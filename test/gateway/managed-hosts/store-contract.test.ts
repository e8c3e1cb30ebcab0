/**
 * One contract for every ManagedHostStore: memory, the data directory's files, and
 * Redis (the shared server, a prefix of its own per test), and Redis Cluster (the
 * hash and its version counter share one slot there). Each store lists one owner's records
 * through its per-owner index (parsing no other owner's) and creates within an owner's caps,
 * counted atomically with the write.
 */
import { randomBytes } from "node:crypto";
import { mkdtemp, readdir, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import type { ManagedHostRecord, ManagedHostStore } from "../../../src/edges/console/managed-hosts.js";
import { FileManagedHostStore } from "../../../src/gateway/managed-hosts/file-store.js";
import { MemoryManagedHostStore } from "../../../src/gateway/managed-hosts/memory-store.js";
import { openRedisManagedHostStore } from "../../../src/gateway/managed-hosts/redis-store.js";
import type * as recordJson from "../../../src/gateway/managed-hosts/record-json.js";
import { openRedis } from "../../../src/redis/client.js";
import { dropPrefix } from "../../support/redis.js";
import { startTestRedisCluster, type TestRedisCluster } from "../../support/redis-cluster.js";

const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";

/** How many stored records were parsed (record-json.ts), to show what an owner's list reads. */
const parsed = vi.hoisted(() => ({ count: 0 }));
vi.mock("../../../src/gateway/managed-hosts/record-json.js", async (original) => {
  const real = await original<typeof recordJson>();
  return {
    ...real,
    parseRecord: (text: string) => {
      parsed.count += 1;
      return real.parseRecord(text);
    },
  };
});

const record = (id: string, updatedAt: number, over: Partial<ManagedHostRecord> = {}): ManagedHostRecord => ({
  id,
  owner: "operator",
  source: "caldav",
  state: "draft",
  config: { id, name: `Host ${id}`, timezone: "America/Toronto" },
  createdAt: 1000,
  updatedAt,
  ...over,
});

interface Subject {
  readonly store: ManagedHostStore;
  /** A second handle on the same storage (another process). */
  readonly twin?: ManagedHostStore;
  cleanup(): Promise<void>;
}

const prefixes: string[] = [];
const clusterPrefixes: string[] = [];
let cluster: TestRedisCluster | undefined;
beforeAll(async () => {
  cluster = await startTestRedisCluster();
}, 60_000);
afterAll(async () => {
  const redis = new Redis(REDIS_URL);
  for (const p of prefixes) await dropPrefix(redis, p);
  redis.disconnect();
  if (cluster !== undefined) {
    const onCluster = openRedis(cluster.url);
    for (const p of clusterPrefixes) {
      await onCluster.del(`${p}managed-hosts`);
      await dropPrefix(onCluster, `{${p}managed-hosts}`);
    }
    onCluster.disconnect();
    await cluster.stop();
  }
});

async function redisSubject(url: string, list: string[]): Promise<Subject> {
  const prefix = `test:managed:${randomBytes(6).toString("hex")}:`;
  list.push(prefix);
  const store = await openRedisManagedHostStore(url, prefix);
  const twin = await openRedisManagedHostStore(url, prefix);
  return {
    store,
    twin,
    cleanup: async () => {
      await store.close();
      await twin.close();
    },
  };
}

const kinds: Array<[string, () => Promise<Subject>]> = [
  [
    "memory",
    () => Promise.resolve({ store: new MemoryManagedHostStore(), cleanup: () => Promise.resolve() }),
  ],
  [
    "file",
    async () => {
      const dir = await mkdtemp(join(tmpdir(), "managed-store-"));
      return {
        store: new FileManagedHostStore(dir),
        twin: new FileManagedHostStore(dir),
        cleanup: () => rm(dir, { recursive: true, force: true }),
      };
    },
  ],
  ["redis", () => redisSubject(REDIS_URL, prefixes)],
  [
    "redis cluster",
    () => {
      if (cluster === undefined) throw new Error("no test Redis Cluster");
      return redisSubject(cluster.url, clusterPrefixes);
    },
  ],
];

describe.each(kinds)("ManagedHostStore contract: %s", (_kind, make) => {
  let s: Subject;
  beforeEach(async () => {
    s = await make();
  });
  afterEach(async () => {
    await s.cleanup();
  });

  it("creates, reads back and lists what it holds", async () => {
    expect(await s.store.list()).toEqual([]);
    expect(await s.store.get("ana")).toBeUndefined();
    expect(await s.store.put(record("ana", 1))).toBe("ok");
    expect(await s.store.put(record("bo", 2))).toBe("ok");
    expect(await s.store.get("ana")).toEqual(record("ana", 1));
    expect((await s.store.list()).map((r) => r.id).sort()).toEqual(["ana", "bo"]);
  });

  it("refuses to create an id that exists, leaving the stored record as it was", async () => {
    expect(await s.store.put(record("ana", 1))).toBe("ok");
    expect(await s.store.put(record("ana", 5, { owner: "someone-else" }))).toBe("exists");
    expect((await s.store.get("ana"))?.owner).toBe("operator");
  });

  it("replaces only while the stored updatedAt is the one given", async () => {
    await s.store.put(record("ana", 1));
    expect(await s.store.put(record("ana", 2, { state: "active" }), 1)).toBe("ok");
    // A second tab still holding updatedAt 1 loses.
    expect(await s.store.put(record("ana", 3, { state: "disconnected" }), 1)).toBe("conflict");
    expect((await s.store.get("ana"))?.state).toBe("active");
    // Replacing what is not there is a conflict too (it was deleted meanwhile).
    expect(await s.store.put(record("zed", 2), 1)).toBe("conflict");
    expect(await s.store.get("zed")).toBeUndefined();
  });

  it("changes its version on every put and delete, and not on a refused write", async () => {
    const seen = new Set<string>([await s.store.version()]);
    const step = async (fn: () => Promise<unknown>, changes: boolean) => {
      await fn();
      const v = await s.store.version();
      expect(seen.has(v)).toBe(!changes);
      seen.add(v);
    };
    await step(() => s.store.put(record("ana", 1)), true);
    await step(() => s.store.put(record("ana", 2), 1), true);
    await step(() => s.store.put(record("ana", 3)), false);
    await step(() => s.store.put(record("ana", 3), 1), false);
    await step(() => s.store.delete("ana"), true);
    await step(() => s.store.delete("ana"), false);
    expect(await s.store.get("ana")).toBeUndefined();
  });

  it("a second process on the same storage sees every write and its version change", async () => {
    if (s.twin === undefined) return; // memory is one process by definition
    const before = await s.twin.version();
    await s.store.put(record("ana", 1));
    expect(await s.twin.version()).not.toBe(before);
    expect(await s.twin.get("ana")).toEqual(record("ana", 1));
    expect(await s.twin.put(record("ana", 2))).toBe("exists");
    expect(await s.twin.put(record("ana", 2), 1)).toBe("ok");
    expect((await s.store.get("ana"))?.updatedAt).toBe(2);
  });

  it("of two racing replaces from the same updatedAt, exactly one wins", async () => {
    await s.store.put(record("ana", 1));
    const other = s.twin ?? s.store;
    const answers = await Promise.all([
      s.store.put(record("ana", 2, { state: "active" }), 1),
      other.put(record("ana", 3, { state: "disconnected" }), 1),
    ]);
    expect(answers.filter((a) => a === "ok")).toHaveLength(1);
    expect(answers.filter((a) => a === "conflict")).toHaveLength(1);
  });

  it("a record's owner never changes: a replace naming another is a conflict", async () => {
    await s.store.put(record("ana", 1, { owner: "own_a" }));
    expect(await s.store.put(record("ana", 2, { owner: "own_b" }), 1)).toBe("conflict");
    expect(await s.store.listOwnedBy("own_b")).toEqual([]);
    expect((await s.store.listOwnedBy("own_a")).map((r) => r.id)).toEqual(["ana"]);
  });

  it("lists one owner's records, sorted, and keeps the list with every write and delete", async () => {
    await s.store.put(record("zed", 1, { owner: "own_a" }));
    await s.store.put(record("bo", 1, { owner: "own_b" }));
    await s.store.put(record("ana", 1, { owner: "own_a" }));
    expect((await s.store.listOwnedBy("own_a")).map((r) => r.id)).toEqual(["ana", "zed"]);
    expect(await s.store.put(record("ana", 2, { owner: "own_a", state: "active" }), 1)).toBe("ok");
    expect(await s.store.listOwnedBy("own_a")).toEqual([
      record("ana", 2, { owner: "own_a", state: "active" }),
      record("zed", 1, { owner: "own_a" }),
    ]);
    await s.store.delete("zed");
    expect((await s.store.listOwnedBy("own_a")).map((r) => r.id)).toEqual(["ana"]);
    expect((await s.store.listOwnedBy("own_b")).map((r) => r.id)).toEqual(["bo"]);
    expect(await s.store.listOwnedBy("nobody")).toEqual([]);
    // Another process's writes show in this one's lists.
    const other = s.twin ?? s.store;
    await other.put(record("cy", 1, { owner: "own_a" }));
    expect((await s.store.listOwnedBy("own_a")).map((r) => r.id)).toEqual(["ana", "cy"]);
    await other.delete("ana");
    expect((await s.store.listOwnedBy("own_a")).map((r) => r.id)).toEqual(["cy"]);
  });

  it("creates within an owner's caps; 30 parallel drafts get exactly the cap through", async () => {
    const caps = { drafts: 20, hosts: 25 };
    const other = s.twin ?? s.store;
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        (i % 2 === 0 ? s.store : other).create(
          record(`d${String(i).padStart(2, "0")}`, 1, { owner: "own_a" }),
          caps,
        ),
      ),
    );
    expect(answers.filter((a) => a === "ok")).toHaveLength(20);
    expect(answers.filter((a) => a === "too_many_drafts")).toHaveLength(10);
    expect(await s.store.listOwnedBy("own_a")).toHaveLength(20);
    // Another owner is not affected; an id that is taken is "exists" whatever the caps.
    expect(await s.store.create(record("b1", 1, { owner: "own_b" }), caps)).toBe("ok");
    expect(await s.store.create(record("b1", 1, { owner: "own_b" }), caps)).toBe("exists");
    // A draft set up frees a place for drafts; hosts count every record.
    const first = (await s.store.listOwnedBy("own_a"))[0]!;
    expect(await s.store.put({ ...first, state: "active", updatedAt: 2 }, 1)).toBe("ok");
    expect(await s.store.create(record("n1", 1, { owner: "own_a" }), caps)).toBe("ok");
    expect(await s.store.create(record("n2", 1, { owner: "own_a" }), caps)).toBe("too_many_drafts");
    for (let i = 0; i < 4; i++)
      expect(await s.store.create(record(`a${i}`, 1, { owner: "own_a", state: "active" }), caps)).toBe("ok");
    expect(await s.store.create(record("a9", 1, { owner: "own_a", state: "active" }), caps)).toBe(
      "too_many_hosts",
    );
    await s.store.delete("a0");
    expect(await s.store.create(record("a9", 1, { owner: "own_a", state: "active" }), caps)).toBe("ok");
  });

  it("an owner's list reads (parses) that owner's records only, however many others have", async () => {
    const mine = ["m1", "m2", "m3"];
    for (const id of mine) await s.store.put(record(id, 1, { owner: "own_a" }));
    await Promise.all(
      Array.from({ length: 300 }, (_, i) =>
        s.store.put(record(`b${String(i).padStart(3, "0")}`, 1, { owner: "own_b" })),
      ),
    );
    await s.store.listOwnedBy("own_a"); // a file store builds its index once here
    parsed.count = 0;
    expect((await s.store.listOwnedBy("own_a")).map((r) => r.id)).toEqual(mine);
    expect(parsed.count).toBeLessThanOrEqual(mine.length);
  });
});

describe("the Redis store's owner index", () => {
  it("is built once for records written before it existed", async () => {
    const prefix = `test:managed:${randomBytes(6).toString("hex")}:`;
    prefixes.push(prefix);
    const redis = new Redis(REDIS_URL);
    try {
      await redis.hset(`${prefix}managed-hosts`, {
        old1: JSON.stringify(record("old1", 1, { owner: "own_a" })),
        old2: JSON.stringify(record("old2", 1, { owner: "own_b", state: "active" })),
      });
      const store = await openRedisManagedHostStore(REDIS_URL, prefix);
      try {
        expect((await store.listOwnedBy("own_a")).map((r) => r.id)).toEqual(["old1"]);
        expect((await store.listOwnedBy("own_b")).map((r) => r.id)).toEqual(["old2"]);
        expect(await store.create(record("new1", 1, { owner: "own_a" }), { drafts: 1, hosts: 5 })).toBe(
          "too_many_drafts",
        );
      } finally {
        await store.close();
      }
    } finally {
      redis.disconnect();
    }
  });
});

describe("the file store's files", () => {
  it("one owner-only file per host under <dataDir>/hosts, no temporary files left", async () => {
    const dir = await mkdtemp(join(tmpdir(), "managed-files-"));
    try {
      const store = new FileManagedHostStore(dir);
      await store.put(record("ana", 1));
      await store.put(record("ana", 2), 1);
      await store.put(record("ana", 3));
      const names = (await readdir(join(dir, "hosts"))).filter((n) => !n.startsWith(".version"));
      expect(names).toEqual(["ana.json"]);
      expect((await stat(join(dir, "hosts", "ana.json"))).mode & 0o777).toBe(0o600);
      // A record under an id that is not a host id cannot name a file outside the directory.
      await expect(store.put(record("../evil", 1))).rejects.toThrow(/not a host id/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
