/**
 * Connect through `booking-gateway serve`: the providers come from fixed variables
 * (GOOGLE_CLIENT_ID/GOOGLE_CLIENT_SECRET, ...), Connect is on only with the token vault
 * (TOKEN_KEYS, or the embedded default's own key in its data dir), and the start banner says
 * which providers can be connected or why it is off.
 */
import { randomBytes } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EMBEDDED_CALENDAR_CONFIG, EMBEDDED_DEFAULT_CONFIG } from "../../../../src/booking/hosts/index.js";
import { runCli, type RunningServer } from "../../../../src/gateway/cli/cli.js";
import { connectClient, createClient } from "../../../../src/redis/connection.js";
import { dropPrefix, startTestRedis, uniquePrefix, type TestRedis } from "../../../support/redis.js";

let dir: string;
let redis: TestRedis;
const prefix = uniquePrefix("connect-serve");
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "gw-connect-serve-"));
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

async function serve(
  extra: Record<string, string>,
  args: readonly string[] = [],
): Promise<{ server: RunningServer; out: string }> {
  const out: string[] = [];
  const result = await runCli(["serve", ...args], {
    env: { GATEWAY_DATA_DIR: join(dir, "data"), PORT: "0", ...extra },
    out: (l: string) => out.push(l),
    err: () => undefined,
    cwd: dir,
  });
  if (typeof result !== "object") throw new Error(`serve exited ${result}: ${out.join("\n")}`);
  return { server: result as RunningServer, out: out.join("\n") };
}

const GOOGLE = { GOOGLE_CLIENT_ID: "google-client", GOOGLE_CLIENT_SECRET: "GOOGLE-SECRET-never-shown" };

describe("serve and Connect", () => {
  it("a config file without TOKEN_KEYS: Connect is off and the banner says why; /connect is not served", async () => {
    const file = join(dir, "embedded.json");
    await writeFile(file, JSON.stringify(EMBEDDED_DEFAULT_CONFIG));
    const { server, out } = await serve(GOOGLE, ["--config", file]);
    try {
      expect(out).not.toContain("token vault key");
      // What is missing, named, with what to set.
      expect(out).toContain(
        "booking-gateway: token vault: off — TOKEN_KEYS is not set, so owners cannot connect a CalDAV calendar or an OAuth account from the console (set TOKEN_KEYS=k1:<the output of openssl rand -base64 32>)",
      );
      expect(server.runtime.console?.setupChoices).toBeUndefined();
      expect(out).toContain(
        "booking-gateway: Connect: off — TOKEN_KEYS is not set, and grants are sealed in the token vault (google configured)",
      );
      expect(server.runtime.connect).toBeUndefined();
      const res = await fetch(`${server.url}/connect/google/start?host=x`, { redirect: "manual" });
      expect(res.status).toBe(404);
    } finally {
      await server.close();
    }
  });

  it("the embedded default without TOKEN_KEYS keeps a key in its data dir: Connect and CalDAV are on", async () => {
    const data = join(dir, "embedded-data");
    const { server, out } = await serve({ ...GOOGLE, GATEWAY_DATA_DIR: data });
    try {
      expect(out).toContain(
        `booking-gateway: token vault key: generated now, kept in ${join(data, "token-keys")} (TOKEN_KEYS is not set`,
      );
      expect(out).toMatch(/booking-gateway: Connect: google from the console's Operate page/);
      expect(server.runtime.connect?.providers).toEqual(["google"]);
      // Owners can keep a CalDAV password: the setup page's account check is there.
      expect(server.runtime.console?.setupChoices).toBeDefined();
    } finally {
      await server.close();
    }
    // The next start uses the same key.
    const again = await serve({ GATEWAY_DATA_DIR: data });
    try {
      expect(again.out).toContain(`booking-gateway: token vault key: kept in ${join(data, "token-keys")}`);
    } finally {
      await again.server.close();
    }
  });

  it("with TOKEN_KEYS, exactly the configured providers are on and /connect asks for a console session", async () => {
    const { server, out } = await serve({
      ...GOOGLE,
      MICROSOFT_CLIENT_ID: "ms-only-an-id",
      TOKEN_KEYS: `k1:${randomBytes(32).toString("base64")}`,
    });
    try {
      expect(out).toMatch(/booking-gateway: Connect: google from the console's Operate page/);
      expect(out).not.toContain("GOOGLE-SECRET");
      expect(server.runtime.connect?.providers).toEqual(["google"]);
      const res = await fetch(`${server.url}/connect/google/start?host=x`, { redirect: "manual" });
      expect(res.status).toBe(303);
      expect(res.headers.get("location")).toBe("/");
    } finally {
      await server.close();
    }
  });

  it("on Redis, a started Connect's state is kept under the gateway's key prefix", async () => {
    // The embedded default plus a Google Calendar host whose grant lives in the vault.
    const config = structuredClone(EMBEDDED_DEFAULT_CONFIG) as unknown as { hosts: unknown[] };
    const [calendar] = structuredClone(EMBEDDED_CALENDAR_CONFIG).hosts as unknown as object[];
    config.hosts.push({
      ...calendar,
      id: "ana-google",
      connector: {
        type: "google",
        settings: {
          credentials: "vault",
          clientIdEnv: "GOOGLE_CLIENT_ID",
          clientSecretEnv: "GOOGLE_CLIENT_SECRET",
        },
      },
    });
    const file = join(dir, "hosts.json");
    await writeFile(file, JSON.stringify(config));
    const { server } = await serve(
      {
        ...GOOGLE,
        TOKEN_KEYS: `k1:${randomBytes(32).toString("base64")}`,
        REDIS_URL: redis.url,
        REDIS_KEY_PREFIX: prefix,
      },
      ["--config", file],
    );
    const client = createClient({ url: redis.url });
    await connectClient(client, redis.url);
    try {
      const signIn = await fetch(`${server.url}/console/sign-in`, {
        method: "POST",
        redirect: "manual",
        headers: { "content-type": "application/x-www-form-urlencoded", origin: server.publicOrigin },
        body: new URLSearchParams({ credential: server.runtime.operatorToken }).toString(),
      });
      const cookie = /gw_session=[^;]+/.exec(signIn.headers.get("set-cookie") ?? "")?.[0] ?? "";
      expect(cookie).not.toBe("");
      const started = await fetch(`${server.url}/connect/google/start?host=ana-google`, {
        redirect: "manual",
        headers: { cookie },
      });
      expect(started.status).toBe(302);
      const state = new URL(started.headers.get("location") ?? "").searchParams.get("state") ?? "";
      const ttl = await client.pttl(`${prefix}connect:state:${state}`);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(10 * 60_000);
    } finally {
      await client.quit();
      await server.close();
    }
  });
});
