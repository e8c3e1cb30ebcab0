/** Where sealed records live: the data dir's credentials/ (0600, atomic replace) and Redis (own prefix). */
import { randomBytes } from "node:crypto";
import { mkdtemp, readdir, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FileSealedStore } from "../../../src/gateway/credentials/file-store.js";
import { parseKeyRing } from "../../../src/gateway/credentials/key-ring.js";
import { RedisSealedStore } from "../../../src/gateway/credentials/redis-store.js";
import { TokenVault } from "../../../src/gateway/credentials/vault.js";
import { dropPrefix, startTestRedis, uniquePrefix, type TestRedis } from "../../support/redis.js";

const ringOf = () => {
  const r = parseKeyRing(`k1:${randomBytes(32).toString("base64")}`);
  if (!r.ok) throw new Error(r.error);
  return r.value;
};
const RECORD = {
  provider: "microsoft" as const,
  accessToken: "eyJ.PLAINTEXT-ACCESS",
  refreshToken: "0.PLAINTEXT-REFRESH",
  tokenEndpoint: "https://login.microsoftonline.com/common/oauth2/v2.0/token",
};

describe("file store", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "gw-cred-"));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("writes one owner-only file per host under credentials/, ciphertext only", async () => {
    const store = new FileSealedStore(dir);
    const vault = new TokenVault(ringOf(), store);
    await vault.put("salon", RECORD);
    const file = join(dir, "credentials", "salon.json");
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await stat(join(dir, "credentials"))).mode & 0o777).toBe(0o700);
    const { readFile } = await import("node:fs/promises");
    expect(await readFile(file, "utf8")).not.toContain("PLAINTEXT");
    expect(await store.list()).toEqual(["salon"]);
    expect((await vault.get("salon"))?.refreshToken).toBe(RECORD.refreshToken);
  });

  it("replaces atomically: readers never see a torn record and no temporary file is left", async () => {
    const store = new FileSealedStore(dir);
    const vault = new TokenVault(ringOf(), store);
    await vault.put("busy", RECORD);
    const writes = Array.from({ length: 40 }, (_, i) =>
      vault.put("busy", { ...RECORD, accessToken: `a${i}-${"x".repeat(4000)}` }),
    );
    const reads = Array.from({ length: 40 }, () => vault.get("busy"));
    const seen = await Promise.all(reads);
    await Promise.all(writes);
    for (const r of seen) expect(r?.provider).toBe("microsoft");
    expect((await readdir(join(dir, "credentials"))).filter((n) => n.endsWith(".tmp"))).toEqual([]);
    expect((await stat(join(dir, "credentials", "busy.json"))).mode & 0o777).toBe(0o600);
  });

  it("refuses a host id that could leave the directory", async () => {
    const store = new FileSealedStore(dir);
    await expect(store.write("../escape", "{}")).rejects.toThrow(/not a host id/);
    await expect(store.read("a/b")).rejects.toThrow(/not a host id/);
  });
});

describe("Redis store", () => {
  let server: TestRedis;
  let redis: Redis;
  const prefix = uniquePrefix("cred");
  beforeAll(async () => {
    server = await startTestRedis();
    redis = new Redis(server.url);
  });
  afterAll(async () => {
    await dropPrefix(redis, prefix);
    redis.disconnect();
    await server.stop();
  });

  it("keeps one hash-tagged key per host under the gateway's prefix, ciphertext only", async () => {
    const store = new RedisSealedStore(redis, prefix);
    const vault = new TokenVault(ringOf(), store);
    await vault.put("salon", RECORD);
    await vault.put("barber", RECORD);
    const raw = await redis.get(`${prefix}credentials:{salon}`);
    expect(raw).not.toBeNull();
    expect(raw).not.toContain("PLAINTEXT");
    expect(await store.list()).toEqual(["barber", "salon"]);
    // Another gateway's prefix on the same Redis sees none of them.
    expect(await new RedisSealedStore(redis, `${prefix}other:`).list()).toEqual([]);
    expect((await vault.get("salon"))?.accessToken).toBe(RECORD.accessToken);
    await vault.delete("barber");
    expect(await store.list()).toEqual(["salon"]);
  });
});
