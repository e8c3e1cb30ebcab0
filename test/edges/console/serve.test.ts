/**
 * The console through `booking-gateway serve`: the start banner says where it is,
 * and two replicas on one Redis and data dir share sessions — signed in through one, the
 * other shows Operate for the same cookie, and signing out through it ends the session on both.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli, type RunningServer } from "../../../src/gateway/cli/cli.js";
import { connectClient, createClient } from "../../../src/redis/connection.js";
import { dropPrefix, startTestRedis, uniquePrefix, type TestRedis } from "../../support/redis.js";

let dir: string;
let redis: TestRedis;
const prefix = uniquePrefix("console-serve").replace(/:$/, "");

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "gw-console-serve-"));
  redis = await startTestRedis();
});
afterAll(async () => {
  const client = createClient({ url: redis.url });
  await connectClient(client, redis.url);
  await dropPrefix(client, prefix);
  await dropPrefix(client, `{${prefix}`);
  await client.quit();
  await redis.stop();
  await rm(dir, { recursive: true, force: true });
});

async function serve(): Promise<{ server: RunningServer; out: string }> {
  const out: string[] = [];
  const result = await runCli(["serve"], {
    env: { GATEWAY_DATA_DIR: join(dir, "data"), PORT: "0", REDIS_URL: redis.url, REDIS_KEY_PREFIX: prefix },
    out: (l: string) => out.push(l),
    err: () => undefined,
    cwd: dir,
  });
  if (typeof result !== "object") throw new Error(`serve exited ${result}: ${out.join("\n")}`);
  return { server: result as RunningServer, out: out.join("\n") };
}

describe("the console on two replicas sharing Redis", () => {
  it("the banner names the console; a session made on one replica works on the other", async () => {
    const one = await serve();
    const two = await serve();
    try {
      expect(one.out).toMatch(/operator console at http:\/\/127\.0\.0\.1:\d+\/ — open it in a browser/);
      const a = one.server;
      const b = two.server;
      const signIn = await fetch(`${a.url}/console/sign-in`, {
        method: "POST",
        redirect: "manual",
        headers: { "content-type": "application/x-www-form-urlencoded", origin: a.publicOrigin },
        body: new URLSearchParams({ credential: a.runtime.operatorToken }).toString(),
      });
      expect(signIn.status).toBe(303);
      const cookie = /gw_session=[^;]+/.exec(signIn.headers.get("set-cookie") ?? "")?.[0] ?? "";
      expect(cookie).not.toBe("");

      const onB = await (await fetch(`${b.url}/`, { headers: { cookie } })).text();
      expect(onB).toContain("<h1>Operate</h1>");
      const csrf = /name="csrf" value="([^"]+)"/.exec(onB)?.[1] ?? "";
      const out = await fetch(`${b.url}/console/sign-out`, {
        method: "POST",
        redirect: "manual",
        headers: { "content-type": "application/x-www-form-urlencoded", origin: b.publicOrigin, cookie },
        body: new URLSearchParams({ csrf }).toString(),
      });
      expect(out.status).toBe(303);
      expect(await (await fetch(`${a.url}/`, { headers: { cookie } })).text()).toContain(
        "Sign in to the operator console",
      );
    } finally {
      await one.server.close();
      await two.server.close();
    }
  });
});
