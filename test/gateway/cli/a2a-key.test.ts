/**
 * `booking-gateway a2a-key --host ID` through the CLI entry (runCli): the key is printed once,
 * works on the host's REST cancel of a real gateway sharing the data dir, stops working when
 * a new one is issued, and never for another host; an unknown host is exit 2 with nothing
 * written. The same on Redis under the test's own prefix.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createA2aApiKeys, redisKeyHashStore } from "../../../src/edges/a2a/api-keys.js";
import { runCli } from "../../../src/gateway/cli/cli.js";
import { startGateway, type E2eGateway } from "../../e2e/support/gateway.js";
import { dropPrefix, startTestRedis, uniquePrefix, type TestRedis } from "../../support/redis.js";

const HOST = "maple-street-auto";

function cli(env: Record<string, string>) {
  const out: string[] = [];
  const errs: string[] = [];
  return {
    out,
    errs,
    run: (argv: string[]) =>
      runCli(argv, { env, out: (l) => out.push(l), err: (l) => errs.push(l) }) as Promise<number>,
  };
}

describe("booking-gateway a2a-key (data dir)", () => {
  let gw: E2eGateway;
  beforeAll(async () => {
    gw = await startGateway();
  });
  afterAll(async () => gw.close());

  const cancel = async (key: string, host = HOST) =>
    (
      await fetch(`${gw.origin}/api/servicialo/${host}/sessions/b_none/cancel`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-org-api-key": key },
        body: "{}",
      })
    ).status;

  it("prints a key once that the serving gateway accepts; a new one retires it", async () => {
    const c = cli({ GATEWAY_DATA_DIR: gw.dataDir });
    expect(await c.run(["a2a-key", "--host", HOST])).toBe(0);
    expect(c.out).toHaveLength(1);
    const first = c.out[0]!;
    expect(first).toMatch(new RegExp(`^gk_${HOST}_[A-Za-z0-9_-]{43}$`));
    expect(c.errs.join("\n")).not.toContain(first);
    // Accepted: past the key check to the session lookup (404), not 401.
    expect(await cancel(first)).toBe(404);
    expect(await cancel(first, "fades-on-queen")).toBe(401);

    expect(await c.run(["a2a-key", "--host", HOST])).toBe(0);
    const second = c.out[1]!;
    expect(second).not.toBe(first);
    expect(await cancel(first)).toBe(401);
    expect(await cancel(second)).toBe(404);
  });

  it("an unknown host or a missing --host is exit 2 and writes nothing", async () => {
    const c = cli({ GATEWAY_DATA_DIR: join(gw.dataDir, "other") });
    expect(await c.run(["a2a-key", "--host", "no-such-host"])).toBe(2);
    expect(c.errs.join("\n")).toContain('unknown host "no-such-host"');
    expect(await c.run(["a2a-key"])).toBe(2);
    expect(c.out).toEqual([]);
    expect(existsSync(join(gw.dataDir, "other", "a2a-keys.json"))).toBe(false);
  });

  it("is in the usage text", async () => {
    const c = cli({});
    expect(await c.run(["help"])).toBe(0);
    expect(c.out.join("\n")).toContain("a2a-key --host ID");
  });
});

describe("booking-gateway a2a-key (Redis)", () => {
  let redis: TestRedis;
  let client: Redis;
  const prefix = uniquePrefix("a2akey");
  const dataDir = mkdtempSync(join(tmpdir(), "a2a-key-"));
  beforeAll(async () => {
    redis = await startTestRedis();
    client = new Redis(redis.url);
  });
  afterAll(async () => {
    await dropPrefix(client, prefix);
    client.disconnect();
    await redis.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("keeps only the hash under REDIS_KEY_PREFIX; rotation retires the old key", async () => {
    const c = cli({ REDIS_URL: redis.url, REDIS_KEY_PREFIX: prefix, GATEWAY_DATA_DIR: dataDir });
    expect(await c.run(["a2a-key", "--host", HOST])).toBe(0);
    expect(await c.run(["a2a-key", "--host", HOST])).toBe(0);
    const [first, second] = c.out;
    const keys = createA2aApiKeys(redisKeyHashStore(client, prefix));
    expect(await keys.verify(HOST, second)).toBe(true);
    expect(await keys.verify(HOST, first)).toBe(false);
    expect(await keys.verify("fades-on-queen", second)).toBe(false);
    const stored = await client.hgetall(`${prefix}a2a:keys`);
    expect(Object.keys(stored)).toEqual([HOST]);
    expect(JSON.stringify(stored)).not.toContain(second);
    expect(existsSync(join(dataDir, "a2a-keys.json"))).toBe(false);
  });
});
