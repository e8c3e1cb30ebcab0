/**
 * How a Redis target is named: parseRedisTarget (src/redis/client.ts) and the
 * environment every command reads (readRedisEnv: REDIS_URL, REDIS_CLUSTER_NODES), with the
 * password hidden wherever a URL is printed.
 */
import { describe, expect, it } from "vitest";
import { readRedisEnv, redactUrl } from "../../src/gateway/cli/serve-env.js";
import { clusterUrlFromNodes, parseRedisTarget } from "../../src/redis/client.js";

describe("parseRedisTarget", () => {
  it("a redis:// or rediss:// URL is one server, passed through", () => {
    expect(parseRedisTarget("redis://127.0.0.1:6379")).toEqual({
      kind: "single",
      url: "redis://127.0.0.1:6379",
    });
    expect(parseRedisTarget("rediss://u:p@h:6380/2").kind).toBe("single");
  });

  it("a redis+cluster:// URL names seed nodes, credentials and TLS", () => {
    expect(parseRedisTarget("redis+cluster://a:7000,b.example:7001,[::1]:7002/")).toEqual({
      kind: "cluster",
      nodes: [
        { host: "a", port: 7000 },
        { host: "b.example", port: 7001 },
        { host: "::1", port: 7002 },
      ],
      tls: false,
    });
    expect(parseRedisTarget("rediss+cluster://ops:s%40cret@h:7000")).toEqual({
      kind: "cluster",
      nodes: [{ host: "h", port: 7000 }],
      tls: true,
      username: "ops",
      password: "s@cret",
    });
    expect(parseRedisTarget("redis+cluster://:pw@h:7000")).toMatchObject({ password: "pw" });
    expect(parseRedisTarget("redis+cluster://:pw@h:7000")).not.toHaveProperty("username");
  });

  it("refuses what is not a Redis URL, and a bad node, naming it", () => {
    expect(() => parseRedisTarget("http://h:1")).toThrow(/redis:\/\/, rediss:\/\/ or redis\+cluster:\/\//);
    expect(() => parseRedisTarget("redis+cluster://h")).toThrow(/host:port, got "h"/);
    expect(() => parseRedisTarget("redis+cluster://h:0")).toThrow(/host:port/);
    expect(() => parseRedisTarget("redis+cluster://h:70000")).toThrow(/host:port/);
    expect(() => parseRedisTarget("redis+cluster://a:1,,b:2")).toThrow(/host:port, got ""/);
  });

  it("clusterUrlFromNodes makes the URL form of REDIS_CLUSTER_NODES", () => {
    expect(clusterUrlFromNodes(" a:1,b:2 ")).toBe("redis+cluster://a:1,b:2");
  });
});

describe("readRedisEnv", () => {
  const read = (env: Record<string, string>) => readRedisEnv(env);

  it("takes a single-server or a cluster REDIS_URL", () => {
    expect(read({ REDIS_URL: "redis://h:6379" })).toEqual({
      ok: true,
      value: { redisUrl: "redis://h:6379" },
    });
    expect(read({ REDIS_URL: "redis+cluster://h:7000,h:7001", REDIS_KEY_PREFIX: "gw:" })).toEqual({
      ok: true,
      value: { redisUrl: "redis+cluster://h:7000,h:7001", redisKeyPrefix: "gw:" },
    });
  });

  it("REDIS_CLUSTER_NODES alone becomes the cluster URL", () => {
    expect(read({ REDIS_CLUSTER_NODES: "10.0.0.1:7000, 10.0.0.2:7000" })).toEqual({
      ok: true,
      value: { redisUrl: "redis+cluster://10.0.0.1:7000, 10.0.0.2:7000" },
    });
    const url = read({ REDIS_CLUSTER_NODES: "10.0.0.1:7000,10.0.0.2:7000" });
    expect(url.ok && parseRedisTarget(url.value.redisUrl ?? "").kind).toBe("cluster");
  });

  it("both set: accepted when they name the same nodes (the URL keeps its credentials)", () => {
    expect(read({ REDIS_URL: "redis+cluster://u:pw@b:2,a:1", REDIS_CLUSTER_NODES: "a:1,b:2" })).toEqual({
      ok: true,
      value: { redisUrl: "redis+cluster://u:pw@b:2,a:1" },
    });
  });

  it("both set and different, or a single-server REDIS_URL beside the nodes: a clear error", () => {
    const different = read({ REDIS_URL: "redis+cluster://u:pw@a:1", REDIS_CLUSTER_NODES: "a:1,b:2" });
    expect(different.ok).toBe(false);
    if (!different.ok) {
      expect(different.error).toMatch(/REDIS_URL .* and REDIS_CLUSTER_NODES .* name different Redis servers/);
      expect(different.error).not.toContain("pw");
    }
    const single = read({ REDIS_URL: "redis://a:1", REDIS_CLUSTER_NODES: "a:1" });
    expect(single.ok).toBe(false);
  });

  it("a bad node or URL: an error naming the variable, never the password", () => {
    const node = read({ REDIS_CLUSTER_NODES: "a:1,b" });
    expect(node).toEqual({
      ok: false,
      error: expect.stringMatching(/^REDIS_CLUSTER_NODES must be host:port.*got "b"/) as string,
    });
    const url = read({ REDIS_URL: "redis+cluster://u:secret@a:1,b" });
    expect(url.ok).toBe(false);
    if (!url.ok) {
      expect(url.error).toMatch(/^REDIS_URL must be/);
      expect(url.error).not.toContain("secret");
    }
    expect(read({ REDIS_URL: "http://localhost" }).ok).toBe(false);
  });
});

describe("redactUrl", () => {
  it("hides the password of a single-server and of a cluster URL", () => {
    expect(redactUrl("redis://u:secret@h:6379")).toBe("redis://u:***@h:6379");
    expect(redactUrl("redis+cluster://u:secret@a:1,b:2")).toBe("redis+cluster://u:***@a:1,b:2");
    expect(redactUrl("rediss+cluster://:secret@a:1")).toBe("rediss+cluster://:***@a:1");
    expect(redactUrl("redis+cluster://a:1,b:2")).toBe("redis+cluster://a:1,b:2");
  });
});

describe("REDIS_WAIT_REPLICAS and REDIS_WAIT_TIMEOUT_MS", () => {
  const read = (env: Record<string, string>) => readRedisEnv(env);
  it("turn on waiting for replicas after booking writes (200 ms unless given); 0 or unset is off", () => {
    expect(read({ REDIS_URL: "redis://h:1", REDIS_WAIT_REPLICAS: "1" })).toEqual({
      ok: true,
      value: { redisUrl: "redis://h:1", redisReplicaWait: { replicas: 1, timeoutMs: 200 } },
    });
    expect(read({ REDIS_URL: "redis://h:1", REDIS_WAIT_REPLICAS: "2", REDIS_WAIT_TIMEOUT_MS: "50" })).toEqual(
      {
        ok: true,
        value: { redisUrl: "redis://h:1", redisReplicaWait: { replicas: 2, timeoutMs: 50 } },
      },
    );
    expect(read({ REDIS_URL: "redis://h:1", REDIS_WAIT_REPLICAS: "0" })).toEqual({
      ok: true,
      value: { redisUrl: "redis://h:1" },
    });
  });

  it("refuse what is not a small count or a positive number of milliseconds, naming the variable", () => {
    const many = read({ REDIS_WAIT_REPLICAS: "ten" });
    expect(many.ok).toBe(false);
    if (!many.ok) expect(many.error).toMatch(/REDIS_WAIT_REPLICAS/);
    const slow = read({ REDIS_WAIT_REPLICAS: "1", REDIS_WAIT_TIMEOUT_MS: "0" });
    expect(slow.ok).toBe(false);
    if (!slow.ok) expect(slow.error).toMatch(/REDIS_WAIT_TIMEOUT_MS/);
  });
});

describe("REDIS_SLOT_MOVE_WAIT_MS", () => {
  it("sets how long a call waits out its host's slot moving; refuses what is not milliseconds", () => {
    expect(readRedisEnv({ REDIS_CLUSTER_NODES: "a:1", REDIS_SLOT_MOVE_WAIT_MS: "20000" })).toEqual({
      ok: true,
      value: { redisUrl: "redis+cluster://a:1", redisSlotMoveWaitMs: 20_000 },
    });
    for (const bad of ["0", "5s", "-1", "100000"]) {
      const r = readRedisEnv({ REDIS_SLOT_MOVE_WAIT_MS: bad });
      expect(r.ok, bad).toBe(false);
      if (!r.ok) expect(r.error).toMatch(/^REDIS_SLOT_MOVE_WAIT_MS must be 1-99999/);
    }
  });
});
