/**
 * A burst of sign-ins against the console, in process through app.request() on the real
 * runtime, with the embedded memory stores and with Redis (REDIS_URL, this run's own prefix).
 * node:crypto's scrypt is wrapped so the test counts every password check (real cost,
 * accounts-password.ts DEFAULT_SCRYPT), and which password each was for.
 *
 *  - 300 parallel wrong sign-ins from one origin (half a wrong password for a real owner, half
 *    an unknown email): at most 5 passwords are checked (sign-in-limit.ts: 5 per 15 minutes),
 *    every other answer is 429, and none is 200.
 *  - During that burst, a real owner's sign-in from another origin completes within
 *    3 × (one scrypt check, timed alone here first) + 500 ms (sign-in-gate.ts: the burst holds
 *    one place of two, so the owner's check waits behind none; it runs beside the burst's one,
 *    up to 2 checks' time on a shared core, while the event loop answers the other 299 at
 *    once). Without the gate it waited behind every queued check: ~300 / 4 checks' time.
 *  - With the gate opened wide (every request checked at once), the limiter alone still lets
 *    exactly 5 of 300 through: the attempt is counted before the check, atomically.
 */
import type { Hono } from "hono";
import type * as crypto from "node:crypto";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import {
  DEFAULT_SCRYPT,
  hashPassword,
  verifyPassword,
} from "../../../src/edges/console/accounts-password.js";
import { consoleWiring } from "../../../src/gateway/runtime/console-wiring.js";
import { createHttpApp } from "../../../src/gateway/app/app.js";
import { connectClient, createClient } from "../../../src/redis/connection.js";
import { startGateway, type E2eGateway } from "../../e2e/support/gateway.js";
import { dropPrefix, startTestRedis, uniquePrefix, type TestRedis } from "../../support/redis.js";

/** Every scrypt run, by the password it was for. */
const checked: string[] = [];
vi.mock("node:crypto", async (original) => {
  const real = await original<typeof crypto>();
  const scrypt = (password: crypto.BinaryLike, ...rest: unknown[]) => {
    checked.push(typeof password === "string" ? password : "(bytes)");
    return (real.scrypt as (...a: unknown[]) => void)(password, ...rest);
  };
  return { ...real, default: { ...real, scrypt }, scrypt };
});

const OWNER = "owner@burst.example";
const PASSWORD = "the owner's long passphrase";
let redis: TestRedis;
const prefixes: string[] = [];

beforeAll(async () => {
  redis = await startTestRedis();
});
afterAll(async () => {
  const client = createClient({ url: redis.url });
  await connectClient(client, redis.url);
  for (const p of prefixes) await dropPrefix(client, p);
  await client.quit();
  await redis.stop();
});

async function signIn(
  app: Hono,
  gw: E2eGateway,
  ip: string,
  form: Record<string, string>,
): Promise<Response> {
  return app.request(`${gw.origin}/console/sign-in`, {
    method: "POST",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      origin: gw.origin,
      "sec-fetch-site": "same-origin",
      "x-forwarded-for": ip,
    },
    body: new URLSearchParams(form).toString(),
  });
}

/** One scrypt check at the real cost on this machine now (the median of three). */
async function scryptMs(): Promise<number> {
  const stored = await hashPassword("calibration passphrase");
  const times: number[] = [];
  for (let i = 0; i < 3; i++) {
    const t0 = performance.now();
    await verifyPassword("calibration passphrase", stored);
    times.push(performance.now() - t0);
  }
  return times.sort((a, b) => a - b)[1]!;
}

const burstForm = (i: number) =>
  i % 2 === 0
    ? { email: OWNER, password: `wrong guess number ${i}` }
    : { email: `nobody-${i}@burst.example`, password: `wrong guess number ${i}` };

describe.each(["memory", "redis"] as const)("a sign-in burst (%s limiter)", (kind) => {
  let gw: E2eGateway;
  let app: Hono;

  beforeAll(async () => {
    const prefix = uniquePrefix("signin-burst");
    prefixes.push(prefix);
    gw = await startGateway({
      runtime: { workers: false, trustForwardedFor: true },
      ...(kind === "redis" && { redisUrl: redis.url, redisKeyPrefix: prefix }),
    });
    app = createHttpApp(gw.runtime);
    const accounts = gw.runtime.console!.accounts;
    const invited = await accounts.invite(OWNER);
    if (!invited.ok) throw new Error(invited.error);
    expect(await accounts.accept(invited.value.token, PASSWORD)).toBeDefined();
    // The unknown-email decoy hash is made once, before the burst.
    expect(
      (await signIn(app, gw, "198.51.100.200", { email: "warm@burst.example", password: "x" })).status,
    ).toBe(401);
  }, 120_000);
  afterAll(async () => {
    await gw?.close();
  });

  it("300 parallel wrong sign-ins from one origin: at most 5 checked; another origin's owner signs in within 3 × scrypt + 500 ms", async () => {
    const oneCheck = await scryptMs();
    checked.length = 0;
    const burst = Array.from({ length: 300 }, (_, i) => signIn(app, gw, "203.0.113.66", burstForm(i)));
    const t0 = performance.now();
    const owner = await signIn(app, gw, "198.51.100.20", { email: OWNER, password: PASSWORD });
    const ownerMs = performance.now() - t0;
    const answers = await Promise.all(burst);

    expect(owner.status).toBe(303);
    expect(owner.headers.get("set-cookie")).toMatch(/gw_session=/);
    const wrongChecks = checked.filter((p) => p !== PASSWORD);
    expect(wrongChecks.length).toBeLessThanOrEqual(5);
    const statuses = answers.map((r) => r.status);
    expect(statuses.filter((s) => s === 401).length).toBeLessThanOrEqual(5);
    expect(statuses.filter((s) => s !== 401 && s !== 429)).toEqual([]);
    expect(ownerMs, `one scrypt check takes ${Math.round(oneCheck)} ms here`).toBeLessThanOrEqual(
      3 * oneCheck + 500,
    );

    // The origin stays locked out even with the right password once 5 have failed.
    for (let i = 0; i < 5; i++) await signIn(app, gw, "203.0.113.66", burstForm(i));
    const locked = await signIn(app, gw, "203.0.113.66", { email: OWNER, password: PASSWORD });
    expect(locked.status).toBe(429);
    expect(Number(locked.headers.get("retry-after"))).toBeGreaterThan(60);
    expect(checked.filter((p) => p !== PASSWORD).length).toBeLessThanOrEqual(5);
  }, 120_000);

  it("with the gate opened wide, the limiter alone lets 5 of 300 parallel attempts be checked", async () => {
    const wide = await consoleWiring({
      clock: gw.clock,
      redisKeyPrefix: `${prefixes.at(-1)!}wide:`,
      ...(kind === "redis" && { redisUrl: redis.url }),
      scrypt: DEFAULT_SCRYPT,
      signInGate: { perOrigin: 1000, concurrent: 1000, queue: 0 },
    });
    try {
      const invited = await wide.deps.accounts.invite(OWNER);
      if (!invited.ok) throw new Error(invited.error);
      await wide.deps.accounts.accept(invited.value.token, PASSWORD);
      const wideApp = createHttpApp({ ...gw.runtime, console: wide.deps });
      await signIn(wideApp, gw, "198.51.100.201", { email: "warm@burst.example", password: "x" });
      checked.length = 0;
      const answers = await Promise.all(
        Array.from({ length: 300 }, (_, i) => signIn(wideApp, gw, "203.0.113.77", burstForm(i))),
      );
      expect(checked.length).toBe(5);
      expect(answers.filter((r) => r.status === 401)).toHaveLength(5);
      expect(answers.filter((r) => r.status === 429)).toHaveLength(295);
    } finally {
      await wide.close();
    }
  }, 120_000);
});
