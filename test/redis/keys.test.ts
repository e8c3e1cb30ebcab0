/**
 * src/redis/keys.ts: names under the deployment prefix, a host's keys in the host's Cluster
 * slot, a group's keys under one tag (docs/ARCHITECTURE.md, Redis layout and scale).
 */
import { describe, expect, it } from "vitest";
import { DEFAULT_REDIS_KEY_PREFIX, hashTag, redisKeys } from "../../src/redis/keys.js";

describe("redisKeys", () => {
  it("joins parts under the prefix, REDIS_KEY_PREFIX's default when none is given", () => {
    expect(DEFAULT_REDIS_KEY_PREFIX).toBe("schcp:");
    expect(redisKeys().key("a2a", "keys")).toBe("schcp:a2a:keys");
    expect(redisKeys("p:").key("console", "session", "s1")).toBe("p:console:session:s1");
    expect(redisKeys("p:").key("hosts")).toBe("p:hosts");
  });

  it("puts a host's keys behind the hash tag of its id", () => {
    const keys = redisKeys("p:");
    expect(keys.hostBase("h1")).toBe("p:{h1}:");
    expect(keys.hostKey("h1", "push")).toBe("p:{h1}:push");
    expect(keys.hostKey("h1", "pub", "o", "x")).toBe("p:{h1}:pub:o:x");
    expect(hashTag("h1")).toBe("{h1}");
  });

  it("tags a group with its whole name under the prefix, and nests a store's own corner", () => {
    const keys = redisKeys("p:");
    // Under the prefix like every key (a `p:*` SCAN finds it); the tag is the group's whole name.
    expect(keys.group("bullmq")).toBe("p:{p:bullmq}");
    const synthetic = keys.under("synthetic");
    expect(synthetic.prefix).toBe("p:synthetic:");
    expect(synthetic.hostKey("h1", "ver")).toBe("p:synthetic:{h1}:ver");
    expect(redisKeys(`${keys.group("managed-hosts")}:`).key("version")).toBe("p:{p:managed-hosts}:version");
  });
});
