/**
 * docs/production.md, followed step by step: `npm run build` (run once for the lane by
 * test/support/gateway-build.ts, its exit checked here), then two
 * `node bin/booking-gateway.js serve` processes from the built dist/ on one Redis (their own
 * REDIS_KEY_PREFIX), one shared data directory, the same OPERATOR_TOKEN (from a secret file),
 * TOKEN_KEYS and PUBLIC_ORIGIN, TRUST_PROXY=1 and JSON logs, behind one reverse proxy that is
 * the public origin. Both must be ready; a hold taken through A confirms through B, the
 * booking is visible to the operator on both, and a second agent's hold on that slot through
 * B is refused. The deploy files (Dockerfile, compose.yaml) are checked for the same settings:
 * Docker itself is not run here.
 */
import { parse as parseYaml } from "yaml";
import { execFileSync, spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KeyApp, SchcpClient, createAgentKey, verifyHoldOffer } from "../../src/agent/index.js";
import type { DiscoveredHost } from "../../src/agent/index.js";
import { gatewayBuilt } from "../support/gateway-cli.js";
import { dropPrefix, startTestRedis, uniquePrefix } from "../support/redis.js";
import type { TestRedis } from "../support/redis.js";
import { must, refusalOf } from "./support/agents.js";
import { BACKEND_HEADER, startProxy } from "./support/processes.js";
import type { BalancingProxy } from "./support/processes.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const HOST = "fades-on-queen";
const SERVICE = "haircut";
/** One barber: a second hold on the same start with him must be refused. */
const BARBER = "barber-marcus";

interface Replica {
  readonly url: string;
  readonly child: ChildProcess;
  readonly output: string[];
}

let redis: TestRedis;
let proxy: BalancingProxy;
let prefix: string;
let dir: string;
const operatorToken = `op-${createAgentKey().thumbprint}`;
const replicas = new Map<string, Replica>();

/** One replica as docs/production.md starts it: the built CLI, every shared setting the same. */
async function startReplica(name: string): Promise<Replica> {
  const child = spawn(
    process.execPath,
    ["bin/booking-gateway.js", "serve", "--config", join(ROOT, "examples/config/synthetic.jsonc")],
    {
      cwd: ROOT,
      env: {
        PATH: process.env["PATH"],
        NODE_ENV: "production",
        HOST: "127.0.0.1",
        PORT: "0",
        PUBLIC_ORIGIN: proxy.origin,
        TRUST_PROXY: "1",
        REDIS_URL: redis.url,
        REDIS_KEY_PREFIX: prefix,
        GATEWAY_DATA_DIR: join(dir, "data"),
        OPERATOR_TOKEN_FILE: join(dir, "secrets/operator_token"),
        TOKEN_KEYS: `k1:${Buffer.alloc(32, 7).toString("base64")}`,
        LOG_FORMAT: "json",
      },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  const output: string[] = [];
  const reap = (): void => void child.kill("SIGKILL");
  process.once("exit", reap);
  child.once("exit", () => process.removeListener("exit", reap));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} did not start:\n${output.join("")}`)), 30_000);
    child.stdout?.on("data", (c: Buffer) => {
      output.push(c.toString());
      const m = /serving \d+ host\(s\) on (http:\/\/[0-9.:]+) /.exec(output.join(""));
      if (m !== null) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    child.stderr?.on("data", (c: Buffer) => output.push(c.toString()));
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited ${code}:\n${output.join("")}`));
    });
  });
  const replica = { url, child, output };
  replicas.set(name, replica);
  proxy.backends.set(name, url);
  return replica;
}

beforeAll(async () => {
  // Step 1: build (dist/ is what bin/booking-gateway.js runs when it exists): `npm run build`,
  // run once for every test that starts the CLI; this throws with its output unless it exited 0.
  await gatewayBuilt();
  redis = await startTestRedis();
  proxy = await startProxy();
  prefix = uniquePrefix("prod");
  dir = mkdtempSync(join(tmpdir(), "gw-production-"));
  execFileSync("mkdir", ["-p", join(dir, "secrets")]);
  writeFileSync(join(dir, "secrets/operator_token"), `${operatorToken}\n`, { mode: 0o600 });
  // Both at once on an empty shared data dir: they must settle on one key per host.
  await Promise.all([startReplica("a"), startReplica("b")]);
}, 240_000);

afterAll(async () => {
  for (const r of replicas.values()) {
    if (r.child.exitCode !== null || r.child.signalCode !== null) continue;
    const exited = new Promise<void>((done) => r.child.once("exit", () => done()));
    r.child.kill("SIGTERM");
    const timer = setTimeout(() => r.child.kill("SIGKILL"), 10_000);
    await exited;
    clearTimeout(timer);
  }
  await proxy?.close();
  if (redis !== undefined) {
    const client = new Redis(redis.url);
    await dropPrefix(client, prefix);
    await dropPrefix(client, `{${prefix}`);
    client.disconnect();
    await redis.stop();
  }
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
}, 60_000);

function agentVia(): {
  client: SchcpClient;
  keyApp: KeyApp;
  key: ReturnType<typeof createAgentKey>;
  via: string;
} {
  const key = createAgentKey();
  const agent = { key, keyApp: new KeyApp({ principalKey: createAgentKey() }), via: "a" } as ReturnType<
    typeof agentVia
  >;
  agent.client = new SchcpClient({
    agentKey: key,
    fetch: (url, init) =>
      fetch(url, {
        ...init,
        headers: { ...(init.headers as Record<string, string>), [BACKEND_HEADER]: agent.via },
      }),
  });
  return agent;
}

async function operatorBookings(replica: Replica): Promise<string[]> {
  const r = await fetch(`${replica.url}/operator/v0/${HOST}/bookings`, {
    headers: { authorization: `Bearer ${operatorToken}` },
  });
  expect(r.status).toBe(200);
  const body = (await r.json()) as { bookings: Array<{ booking: { booking_id: string } }> };
  return body.bookings.map((b) => b.booking.booking_id);
}

describe("docs/production.md: two replicas from dist/ on one Redis", { timeout: 60_000 }, () => {
  it("both run the build, log JSON, and are ready", async () => {
    for (const r of replicas.values()) {
      const ready = await fetch(`${r.url}/readyz`);
      expect(ready.status).toBe(200);
      expect(await ready.json()).toEqual({ ready: true });
      expect((await fetch(`${r.url}/healthz`)).status).toBe(200);
      const lines = r.output.join("").trim().split("\n");
      for (const line of lines) expect(typeof (JSON.parse(line) as { level?: unknown }).level).toBe("string");
      expect(r.output.join("")).toContain("operator credential: from OPERATOR_TOKEN");
      expect(r.output.join("")).toContain("OAuth token vault");
    }
  });

  it("books through both: hold via A, confirm via B, seen on both, the slot refused to another agent via B", async () => {
    const first = agentVia();
    const discover = async (via: string): Promise<DiscoveredHost> => {
      first.via = via;
      return must(
        await first.client.discoverHost(`${proxy.origin}/hosts/${HOST}/scheduling.json`),
        `discover ${via}`,
      );
    };
    const hostA = await discover("a");
    const hostB = await discover("b");
    expect(hostB.keys).toEqual(hostA.keys);

    first.via = "a";
    const servedBefore = proxy.served.length;
    const now = Date.now();
    const slots = must(
      await first.client.availability(hostA, {
        service_id: SERVICE,
        window: {
          start: new Date(now + 2 * 86_400_000).toISOString(),
          end: new Date(now + 9 * 86_400_000).toISOString(),
        },
        limit: 10,
      }),
      "availability via a",
    ).body.slots;
    const start = slots[0]!.start;
    const m = await first.keyApp.issueMandate({ agent: first.key, audience: HOST, scope: ["hold", "book"] });
    const hold = must(
      await first.client.hold(
        hostA,
        { service_id: SERVICE, start, resource: BARBER },
        { mandate: m.compact },
      ),
      "hold via a",
    );
    const held = must(await verifyHoldOffer(hold.body, hostA), "offer");
    expect(new Set(proxy.served.slice(servedBefore))).toEqual(new Set(["a"]));

    first.via = "b";
    const conf = must(
      await first.client.confirm(
        hostB,
        hold.body.hold_id,
        { offer_sha256: held.offer.sha256 },
        { mandate: m.compact },
      ),
      "confirm via b",
    );
    expect(proxy.served.at(-1)).toBe("b");

    const bookingId = (conf.body as { booking: { booking_id: string } }).booking.booking_id;
    expect(await operatorBookings(replicas.get("a")!)).toContain(bookingId);
    expect(await operatorBookings(replicas.get("b")!)).toContain(bookingId);

    const second = agentVia();
    second.via = "b";
    const m2 = await second.keyApp.issueMandate({ agent: second.key, audience: HOST, scope: ["hold"] });
    const taken = await second.client.hold(
      hostB,
      { service_id: SERVICE, start, resource: BARBER },
      { mandate: m2.compact },
    );
    expect(taken.ok).toBe(false);
    expect(refusalOf(taken)).toMatchObject({ code: "SLOT_UNAVAILABLE" });
  });

  it("keep the host keys in the shared data dir (what to back up with Redis)", () => {
    const key = JSON.parse(readFileSync(join(dir, "data/keys", `${HOST}.json`), "utf8")) as { kid: string };
    expect(key.kid).toMatch(new RegExp(`^${HOST}-\\d{4}-\\d{2}$`));
  });
});

describe("the deploy files say the same", () => {
  const load = (text: string): unknown => parseYaml(text);

  it("compose.yaml: Redis with appendonly, two gateway replicas sharing every setting, a proxy on /readyz", () => {
    const compose = load(readFileSync(join(ROOT, "compose.yaml"), "utf8")) as {
      services: Record<
        string,
        { environment?: Record<string, string>; volumes?: string[]; command?: string[]; secrets?: string[] }
      >;
    };
    const { redis: r, "gateway-a": a, "gateway-b": b, proxy: p } = compose.services;
    expect(r?.command).toEqual(expect.arrayContaining(["--appendonly", "yes"]));
    expect(a).toEqual(b);
    for (const name of [
      "REDIS_URL",
      "REDIS_KEY_PREFIX",
      "PUBLIC_ORIGIN",
      "OPERATOR_TOKEN_FILE",
      "TOKEN_KEYS_FILE",
    ]) {
      expect(a?.environment?.[name]).toBeDefined();
    }
    expect(a?.environment?.["TRUST_PROXY"]).toBe("1");
    expect(a?.volumes).toContain("gateway-data:/data");
    expect(p?.volumes?.some((v) => v.startsWith("./examples/deploy/Caddyfile:"))).toBe(true);
    const caddy = readFileSync(join(ROOT, "examples/deploy/Caddyfile"), "utf8");
    expect(caddy).toMatch(/reverse_proxy gateway-a:8787 gateway-b:8787/);
    expect(caddy).toMatch(/health_uri \/readyz/);
  });

  it("Dockerfile: multi-stage node:20-slim, non-root, /data volume, health check, serve from dist", () => {
    const text = readFileSync(join(ROOT, "Dockerfile"), "utf8");
    expect(text.match(/^FROM node:20-slim/gm)).toHaveLength(2);
    expect(text).toMatch(/RUN npm ci/);
    expect(text).toMatch(/npm run build/);
    expect(text).toMatch(/^USER node$/m);
    expect(text).toMatch(/GATEWAY_DATA_DIR=\/data/);
    expect(text).toMatch(/HOST=0\.0\.0\.0/);
    expect(text).toMatch(/HEALTHCHECK .*\n.*\/healthz/);
    expect(text).toMatch(
      /CMD \["node", "bin\/booking-gateway\.js", "serve", "--config", "\/config\/hosts\.json"\]/,
    );
  });
});
