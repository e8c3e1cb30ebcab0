/**
 * Connect as the gateway serves it: mounted in the real app on the real runtime,
 * behind the operator console's sessions, with a Google Calendar host whose grant lives in the
 * token vault. Google's token endpoint is faked with nock from fixtures/google/oauth-code-granted.json
 * (see fixtures/google/SOURCES.md). Also serve's Connect settings from the environment.
 */
import { randomBytes } from "node:crypto";
import nock from "nock";
import type { Hono } from "hono";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { EMBEDDED_CALENDAR_CONFIG, EMBEDDED_DEFAULT_CONFIG } from "../../../../src/booking/hosts/index.js";
import { connectBannerLine, readConnectEnv, readServeEnv } from "../../../../src/gateway/cli/serve-env.js";
import { parseKeyRing } from "../../../../src/gateway/credentials/key-ring.js";
import { MemorySealedStore } from "../../../../src/gateway/credentials/store.js";
import { TokenVault } from "../../../../src/gateway/credentials/vault.js";
import { createHttpApp } from "../../../../src/gateway/app/app.js";
import { readFixtureJson } from "../../../support/fixtures.js";
import { startGateway, type E2eGateway } from "../../../e2e/support/gateway.js";

const COOKIE = "gw_session"; // http://127.0.0.1: no __Host- prefix (console/routes.ts)
const env = { GOOGLE_CLIENT_ID: "google-client", GOOGLE_CLIENT_SECRET: "GOOGLE-SECRET-never-shown" };

let gw: E2eGateway;
let app: Hono;
let vault: TokenVault;

function calendarHost(): Record<string, unknown> {
  const [host] = structuredClone(EMBEDDED_CALENDAR_CONFIG).hosts as unknown as Record<string, unknown>[];
  return {
    ...host,
    id: "ana-google",
    name: "Ana <Tutor>",
    connector: {
      type: "google",
      settings: {
        credentials: "vault",
        clientIdEnv: "GOOGLE_CLIENT_ID",
        clientSecretEnv: "GOOGLE_CLIENT_SECRET",
      },
    },
  };
}

beforeAll(async () => {
  const ring = parseKeyRing(`k1:${randomBytes(32).toString("base64")}`);
  if (!ring.ok) throw new Error(ring.error);
  vault = new TokenVault(ring.value, new MemorySealedStore());
  const config = structuredClone(EMBEDDED_DEFAULT_CONFIG) as unknown as { hosts: unknown[] };
  config.hosts.push(calendarHost());
  gw = await startGateway({
    config,
    runtime: {
      workers: false,
      credentials: { vault, env },
      connect: { google: { clientIdEnv: "GOOGLE_CLIENT_ID", clientSecretEnv: "GOOGLE_CLIENT_SECRET" } },
    },
  });
  app = createHttpApp(gw.runtime);
});
afterAll(async () => {
  await gw?.close();
});
beforeEach(() => {
  nock.disableNetConnect();
  nock.enableNetConnect("127.0.0.1");
});
afterEach(() => {
  nock.cleanAll();
  nock.enableNetConnect();
});

const url = (path: string) => `${gw.origin}${path}`;

async function signIn(): Promise<string> {
  const res = await app.request(url("/console/sign-in"), {
    method: "POST",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      origin: gw.origin,
      "sec-fetch-site": "same-origin",
    },
    body: new URLSearchParams({ credential: gw.runtime.operatorToken }).toString(),
  });
  expect(res.status).toBe(303);
  const m = new RegExp(`${COOKIE}=([^;]*)`).exec(res.headers.get("set-cookie") ?? "");
  if (m === null) throw new Error("no session cookie");
  return `${COOKIE}=${m[1]}`;
}

const operate = async (cookie: string) => (await app.request(url("/"), { headers: { cookie } })).text();

describe("Connect mounted behind the console", () => {
  it("start without a console session redirects to the sign-in page and starts nothing", async () => {
    const res = await app.request(url("/connect/google/start?host=ana-google"));
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/");
    const stale = await app.request(url("/connect/google/start?host=ana-google"), {
      headers: { cookie: `${COOKIE}=not-a-session` },
    });
    expect(stale.status).toBe(303);
    expect(stale.headers.get("location")).toBe("/");
  });

  it("Operate lists the host; start → Google; callback → grant in the vault, 303 to /, shown connected", async () => {
    const cookie = await signIn();
    const before = await operate(cookie);
    expect(before).toContain('<h2 id="connect-h">Connect</h2>');
    expect(before).toContain('href="/connect/google/start?host=ana-google"');
    expect(before).toContain("Ana &lt;Tutor&gt;");
    expect(before).toContain('<td data-label="Grant" class="degraded">not connected</td>');

    const started = await app.request(url("/connect/google/start?host=ana-google"), { headers: { cookie } });
    expect(started.status).toBe(302);
    const to = new URL(started.headers.get("location") ?? "");
    expect(`${to.origin}${to.pathname}`).toBe("https://accounts.google.com/o/oauth2/v2/auth");
    expect(to.searchParams.get("client_id")).toBe("google-client");
    expect(to.searchParams.get("redirect_uri")).toBe(`${gw.origin}/connect/google/callback`);
    const state = to.searchParams.get("state") ?? "";
    expect(state).not.toBe("");

    // Back from Google cross-site: the SameSite=Strict cookie is not sent, so the gateway
    // answers a same-origin page that loads the callback again (and stores nothing yet).
    const callback = url(`/connect/google/callback?code=AUTHCODE-G&state=${state}`);
    const bounced = await app.request(callback, { headers: { "sec-fetch-site": "cross-site" } });
    expect(bounced.status).toBe(200);
    expect(await bounced.text()).toContain(
      `http-equiv="refresh" content="0;url=/connect/google/callback?code=AUTHCODE-G&amp;state=${state}"`,
    );
    expect(await vault.get("ana-google")).toBeUndefined();

    const token = nock("https://oauth2.googleapis.com")
      .post("/token")
      .once()
      .reply(200, readFixtureJson("google/oauth-code-granted.json"));
    const done = await app.request(callback, { headers: { cookie, "sec-fetch-site": "same-origin" } });
    expect(done.status).toBe(303);
    expect(done.headers.get("location")).toBe("/");
    token.done();
    expect(await vault.get("ana-google")).toMatchObject({
      provider: "google",
      refreshToken: "1//TEST-CODE-google-refresh",
    });

    const after = await operate(cookie);
    expect(after).toContain('<td data-label="Grant" class="ok">connected</td>');
    expect(after).not.toContain("TEST-CODE-google");
  });

  it("start refuses a host that does not keep a grant of that provider in the vault", async () => {
    const cookie = await signIn();
    for (const path of [
      "/connect/google/start?host=harbourview-dental", // a synthetic host
      "/connect/microsoft/start?host=ana-google", // not configured here, nor this host's provider
      "/connect/google/start?host=nobody",
    ]) {
      const res = await app.request(url(path), { headers: { cookie } });
      expect(res.status, path).toBeGreaterThanOrEqual(400);
      expect(res.headers.get("location"), path).toBeNull();
    }
  });

  it("a callback without a console session is sent to sign in and stores nothing", async () => {
    const res = await app.request(url("/connect/google/callback?code=X&state=Y"));
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/");
  });
});

describe("serve's Connect settings", () => {
  it("turns on exactly the providers whose id and secret are both set", () => {
    const read = readConnectEnv({
      ...env,
      MICROSOFT_CLIENT_ID: "ms", // no secret: off
      SQUARE_CLIENT_ID: "sq",
      SQUARE_CLIENT_SECRET: "sq-secret",
      SQUARE_ENVIRONMENT: "sandbox",
    });
    expect(read).toEqual({
      ok: true,
      value: {
        square: {
          clientIdEnv: "SQUARE_CLIENT_ID",
          clientSecretEnv: "SQUARE_CLIENT_SECRET",
          environment: "sandbox",
        },
        google: { clientIdEnv: "GOOGLE_CLIENT_ID", clientSecretEnv: "GOOGLE_CLIENT_SECRET" },
      },
    });
    expect(readConnectEnv({})).toEqual({ ok: true, value: {} });
    const bad = readServeEnv({ SQUARE_ENVIRONMENT: "staging" }, "/");
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.error).toContain("SQUARE_ENVIRONMENT");
  });

  it("says which providers can be connected, or why Connect is off", () => {
    const google = readConnectEnv(env);
    if (!google.ok) throw new Error(google.error);
    expect(connectBannerLine(google.value, true, "https://gw.example")).toBe(
      "Connect: google from the console's Operate page (redirect URIs https://gw.example/connect/<provider>/callback)",
    );
    expect(connectBannerLine(google.value, false, "https://gw.example")).toMatch(
      /^Connect: off — TOKEN_KEYS is not set.*\(google configured\)$/,
    );
    expect(connectBannerLine({}, true, "https://gw.example")).toMatch(
      /^Connect: off — no OAuth client configured/,
    );
  });
});
