/**
 * The OAuth Connect flow against nock-shaped token endpoints of Square,
 * Google and Microsoft (fixtures/<provider>/oauth-code-*.json, sources in SOURCES.md): the
 * authorization URL, one code exchange per state with the PKCE verifier matching the challenge,
 * the grant sealed in the vault; replayed, expired and foreign states, a denied consent and an
 * invalid_grant all refused with nothing stored, and no secret or token in any message or log.
 */
import { createHash, randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import nock from "nock";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { parseKeyRing } from "../../../../src/gateway/credentials/key-ring.js";
import type { OAuthProvider } from "../../../../src/gateway/credentials/record.js";
import { MemorySealedStore } from "../../../../src/gateway/credentials/store.js";
import { TokenVault } from "../../../../src/gateway/credentials/vault.js";
import { createConnect, type Connect } from "../../../../src/edges/console/connect/flow.js";
import { resolveProviders, type ConnectSettings } from "../../../../src/edges/console/connect/providers.js";
import {
  MemoryConnectStateStore,
  RedisConnectStateStore,
  type ConnectStateStore,
} from "../../../../src/edges/console/connect/state-store.js";
import { readFixtureJson } from "../../../support/fixtures.js";
import { dropPrefix, startTestRedis, uniquePrefix, type TestRedis } from "../../../support/redis.js";

const SECRETS = {
  SQ_ID: "sq0idp-TESTCLIENT",
  SQ_SECRET: "sq0csp-SECRET-never-logged",
  G_ID: "google-client.apps.googleusercontent.com",
  G_SECRET: "GOCSPX-SECRET-never-logged",
  MS_ID: "00000000-0000-0000-0000-00000000c1e0",
  MS_SECRET: "MS-SECRET-never-logged",
};
const BASE = "https://gateway.example.test";
const NOW = Date.parse("2026-12-03T07:00:00Z");

function settings(squarePkce = false): ConnectSettings {
  return {
    publicBaseUrl: `${BASE}/`,
    square: { clientIdEnv: "SQ_ID", clientSecretEnv: "SQ_SECRET", environment: "sandbox", pkce: squarePkce },
    google: { clientIdEnv: "G_ID", clientSecretEnv: "G_SECRET" },
    microsoft: { clientIdEnv: "MS_ID", clientSecretEnv: "MS_SECRET" },
  };
}

interface Setup {
  connect: Connect;
  vault: TokenVault;
  store: MemorySealedStore;
  lines: string[];
  advance(ms: number): void;
}

function setup(states?: ConnectStateStore, squarePkce = false): Setup {
  const ring = parseKeyRing(`k1:${randomBytes(32).toString("base64")}`);
  if (!ring.ok) throw new Error(ring.error);
  const store = new MemorySealedStore();
  const vault = new TokenVault(ring.value, store);
  const lines: string[] = [];
  const log = (level: string) => (message: string, fields?: Readonly<Record<string, unknown>>) =>
    lines.push(JSON.stringify({ level, message, ...fields }));
  let now = NOW;
  const connect = createConnect({
    providers: resolveProviders(settings(squarePkce), SECRETS),
    states: states ?? new MemoryConnectStateStore({ now: () => now }),
    vault,
    clock: { now: () => now },
    logger: { info: log("info"), warn: log("warn") },
  });
  return { connect, vault, store, lines, advance: (ms) => (now += ms) };
}

const TOKEN_HOSTS: Record<OAuthProvider, { origin: string; path: string; fixture: string }> = {
  square: {
    origin: "https://connect.squareupsandbox.com",
    path: "/oauth2/token",
    fixture: "square/oauth-code-obtain-token.json",
  },
  google: {
    origin: "https://oauth2.googleapis.com",
    path: "/token",
    fixture: "google/oauth-code-granted.json",
  },
  microsoft: {
    origin: "https://login.microsoftonline.com",
    path: "/common/oauth2/v2.0/token",
    fixture: "microsoft/oauth-code-granted.json",
  },
};

/** The token request's body, JSON (Square) or form (RFC 6749). */
function bodyOf(raw: unknown): Record<string, string> {
  if (typeof raw === "object" && raw !== null) return raw as Record<string, string>;
  return Object.fromEntries(new URLSearchParams(String(raw)));
}

const s256 = (verifier: string) => createHash("sha256").update(verifier).digest("base64url");

async function start(s: Setup, provider: OAuthProvider, sessionId = "session-A") {
  const started = await s.connect.startConnect({ provider, hostId: "salon", sessionId });
  if (!started.ok) throw new Error(started.error.message);
  return started.value;
}

const callback = (provider: OAuthProvider, params: Record<string, string>) =>
  `${BASE}/connect/${provider}/callback?${new URLSearchParams(params).toString()}`;

function expectNoSecrets(s: Setup, ...values: unknown[]) {
  const text = JSON.stringify([s.lines, ...values]);
  for (const secret of [
    ...Object.values(SECRETS).filter((v) => v.includes("SECRET")),
    "TEST-CODE-",
    "AUTHCODE-",
    "user_denied",
  ])
    expect(text).not.toContain(secret);
}

beforeEach(() => {
  nock.disableNetConnect();
});
afterEach(() => {
  nock.cleanAll();
  nock.enableNetConnect();
});

describe("the authorization URL", () => {
  it.each([
    [
      "google",
      "https://accounts.google.com/o/oauth2/v2/auth",
      SECRETS.G_ID,
      "https://www.googleapis.com/auth/calendar.events https://www.googleapis.com/auth/calendar.readonly",
    ],
    [
      "microsoft",
      "https://login.microsoftonline.com/common/oauth2/v2.0/authorize",
      SECRETS.MS_ID,
      "offline_access Calendars.ReadWrite",
    ],
  ] as const)(
    "%s: endpoint, client, redirect, scopes, S256 challenge, state",
    async (provider, endpoint, id, scope) => {
      const s = setup();
      const url = await start(s, provider);
      expect(`${url.origin}${url.pathname}`).toBe(endpoint);
      const q = url.searchParams;
      expect(q.get("client_id")).toBe(id);
      expect(q.get("response_type")).toBe("code");
      expect(q.get("redirect_uri")).toBe(`${BASE}/connect/${provider}/callback`);
      expect(q.get("scope")).toBe(scope);
      expect(q.get("code_challenge_method")).toBe("S256");
      expect(q.get("code_challenge")).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(q.get("state")).toMatch(/^[A-Za-z0-9_-]{20,}$/);
      if (provider === "google") {
        expect(q.get("access_type")).toBe("offline");
        expect(q.get("prompt")).toBe("consent");
      }
      expect(url.href).not.toContain("SECRET");
      // Two starts never share a state or a challenge.
      const again = await start(s, provider);
      expect(again.searchParams.get("state")).not.toBe(q.get("state"));
      expect(again.searchParams.get("code_challenge")).not.toBe(q.get("code_challenge"));
    },
  );

  it("square (sandbox): Square's scopes for bookings, catalog, team and locations; code flow without PKCE by default", async () => {
    const url = await start(setup(), "square");
    expect(`${url.origin}${url.pathname}`).toBe("https://connect.squareupsandbox.com/oauth2/authorize");
    expect(url.searchParams.get("client_id")).toBe(SECRETS.SQ_ID);
    expect(url.searchParams.get("redirect_uri")).toBe(`${BASE}/connect/square/callback`);
    expect(url.searchParams.get("scope")?.split(" ")).toEqual([
      "APPOINTMENTS_READ",
      "APPOINTMENTS_ALL_READ",
      "APPOINTMENTS_WRITE",
      "APPOINTMENTS_ALL_WRITE",
      "APPOINTMENTS_BUSINESS_SETTINGS_READ",
      "ITEMS_READ",
      "MERCHANT_PROFILE_READ",
    ]);
    expect(url.searchParams.has("code_challenge")).toBe(false);
    const pkce = await start(setup(undefined, true), "square");
    expect(pkce.searchParams.get("code_challenge_method")).toBe("S256");
  });

  it("square asks production sellers to sign in (session=false); the Sandbox supports only the default", async () => {
    // Square's OAuth best practices: session=false in production, the Sandbox supports only true.
    expect((await start(setup(), "square")).searchParams.has("session")).toBe(false);
    const production = createConnect({
      providers: resolveProviders(
        { publicBaseUrl: BASE, square: { clientIdEnv: "SQ_ID", clientSecretEnv: "SQ_SECRET" } },
        SECRETS,
      ),
      states: new MemoryConnectStateStore(),
      vault: setup().vault,
    });
    const started = await production.startConnect({ provider: "square", hostId: "salon", sessionId: "s" });
    if (!started.ok) throw new Error(started.error.message);
    expect(`${started.value.origin}${started.value.pathname}`).toBe(
      "https://connect.squareup.com/oauth2/authorize",
    );
    expect(started.value.searchParams.get("session")).toBe("false");
  });

  it("an unconfigured provider and a bad host id are refused", async () => {
    const connect = createConnect({
      providers: resolveProviders({ publicBaseUrl: BASE }, {}),
      states: new MemoryConnectStateStore(),
      vault: setup().vault,
    });
    expect(await connect.startConnect({ provider: "google", hostId: "salon", sessionId: "s" })).toMatchObject(
      {
        ok: false,
        error: { kind: "not_configured" },
      },
    );
    expect(
      await setup().connect.startConnect({ provider: "google", hostId: "../x", sessionId: "s" }),
    ).toMatchObject({ ok: false, error: { kind: "invalid_host" } });
  });

  it("a client id variable that is unset fails at configuration, naming the variable only", () => {
    expect(() => resolveProviders(settings(), { ...SECRETS, G_SECRET: "" })).toThrow(/G_SECRET/);
  });
});

describe.each(["google", "microsoft", "square"] as const)("%s callback", (provider) => {
  const t = TOKEN_HOSTS[provider];

  it("the right state exchanges the code once (verifier matches the challenge) and the vault holds the grant", async () => {
    const s = setup(undefined, provider === "square" ? false : undefined);
    const url = await start(s, provider);
    const state = url.searchParams.get("state") ?? "";
    const sent: Record<string, string>[] = [];
    const scope = nock(t.origin)
      .post(t.path, (body) => {
        sent.push(bodyOf(body));
        return true;
      })
      .once()
      .reply(200, readFixtureJson(t.fixture));
    const done = await s.connect.finishConnect(
      provider,
      callback(provider, { code: "AUTHCODE-1", state }),
      "session-A",
    );
    expect(done).toEqual({ ok: true, value: { provider, hostId: "salon" } });
    scope.done();
    expect(sent).toHaveLength(1);
    const body = sent[0] ?? {};
    expect(body["grant_type"]).toBe("authorization_code");
    expect(body["code"]).toBe("AUTHCODE-1");
    expect(body["redirect_uri"]).toBe(`${BASE}/connect/${provider}/callback`);
    if (provider === "square") {
      expect(body["client_secret"]).toBe(SECRETS.SQ_SECRET);
      expect(body["code_verifier"]).toBeUndefined();
    } else {
      expect(s256(body["code_verifier"] ?? "")).toBe(url.searchParams.get("code_challenge"));
    }
    const fixture = readFixtureJson<{ access_token: string; refresh_token: string }>(t.fixture);
    const held = await s.vault.get("salon");
    expect(held).toMatchObject({
      provider,
      accessToken: fixture.access_token,
      refreshToken: fixture.refresh_token,
      tokenEndpoint: `${t.origin}${t.path}`,
    });
    expect(held?.expiresAt).toBeGreaterThan(NOW);
    // At rest: sealed, no token in the stored text.
    expect(s.store.records.get("salon")).not.toContain(fixture.access_token);
    expect(s.store.records.get("salon")).not.toContain(fixture.refresh_token);

    // The same callback again: the state is gone, no second exchange.
    const replay = await s.connect.finishConnect(
      provider,
      callback(provider, { code: "AUTHCODE-1", state }),
      "session-A",
    );
    expect(replay).toMatchObject({ ok: false, error: { kind: "bad_state" } });
    expectNoSecrets(s, done, replay);
  });

  it("an expired state is refused and nothing is exchanged or stored", async () => {
    const s = setup();
    const state = (await start(s, provider)).searchParams.get("state") ?? "";
    s.advance(10 * 60_000 + 1);
    const r = await s.connect.finishConnect(
      provider,
      callback(provider, { code: "AUTHCODE-2", state }),
      "session-A",
    );
    expect(r).toMatchObject({ ok: false, error: { kind: "expired_state" } });
    expect(r.ok === false && r.error.message).toMatch(/expired/);
    expect(await s.vault.get("salon")).toBeUndefined();
  });

  it("a state started from another session is refused", async () => {
    const s = setup();
    const state = (await start(s, provider, "session-A")).searchParams.get("state") ?? "";
    const r = await s.connect.finishConnect(
      provider,
      callback(provider, { code: "AUTHCODE-3", state }),
      "session-B",
    );
    expect(r).toMatchObject({ ok: false, error: { kind: "wrong_session" } });
    expect(await s.vault.get("salon")).toBeUndefined();
  });

  it("an unknown state, or none, is refused", async () => {
    const s = setup();
    await start(s, provider);
    for (const params of <Record<string, string>[]>[
      { code: "AUTHCODE-4", state: "forged" },
      { code: "AUTHCODE-4" },
    ])
      expect(await s.connect.finishConnect(provider, callback(provider, params), "session-A")).toMatchObject({
        ok: false,
        error: { kind: "bad_state" },
      });
  });

  it("a denied consent (error=access_denied) is explained, and uses up the state", async () => {
    const s = setup();
    const state = (await start(s, provider)).searchParams.get("state") ?? "";
    const denied = await s.connect.finishConnect(
      provider,
      callback(provider, { error: "access_denied", error_description: "user_denied", state }),
      "session-A",
    );
    expect(denied).toMatchObject({ ok: false, error: { kind: "denied", oauthError: "access_denied" } });
    expect(denied.ok === false && denied.error.message).toMatch(/not granted/);
    expect(await s.vault.get("salon")).toBeUndefined();
    expectNoSecrets(s, denied);
  });

  it("a token answer past the byte cap stores nothing, however well-formed", async () => {
    const s = setup();
    const state = (await start(s, provider)).searchParams.get("state") ?? "";
    const granted = readFixtureJson<object>(t.fixture);
    const scope = nock(t.origin)
      .post(t.path)
      .reply(200, { ...granted, pad: "x".repeat(100_000) });
    const r = await s.connect.finishConnect(
      provider,
      callback(provider, { code: "AUTHCODE-6", state }),
      "session-A",
    );
    scope.done();
    expect(r).toMatchObject({ ok: false, error: { kind: "exchange_failed" } });
    expect(await s.vault.get("salon")).toBeUndefined();
    expectNoSecrets(s, r);
  });

  it("a refused code (400 invalid_grant; Square: its own error shape) stores nothing and says so without leaking", async () => {
    const s = setup();
    const state = (await start(s, provider)).searchParams.get("state") ?? "";
    // Square documents no OAuth error body for a bad code; its OAuth endpoints answer
    // {message, type} (fixtures/square/SOURCES.md, oauth-error-invalid-refresh-token.json).
    const [status, errorBody, code] =
      provider === "square"
        ? [401, readFixtureJson("square/oauth-error-invalid-refresh-token.json"), "service.not_authorized"]
        : [400, readFixtureJson(`${provider}/oauth-error-invalid-grant.json`), "invalid_grant"];
    const scope = nock(t.origin)
      .post(t.path)
      .reply(status, errorBody as nock.Body);
    const r = await s.connect.finishConnect(
      provider,
      callback(provider, { code: "AUTHCODE-5", state }),
      "session-A",
    );
    scope.done();
    expect(r).toMatchObject({ ok: false, error: { kind: "exchange_failed", oauthError: code } });
    expect(r.ok === false && r.error.message).toMatch(/Nothing was saved/);
    expect(await s.vault.get("salon")).toBeUndefined();
    expect(s.store.records.size).toBe(0);
    expectNoSecrets(s, r);
  });
});

describe("square PKCE flow", () => {
  it("sends the verifier instead of the secret", async () => {
    const s = setup(undefined, true);
    const url = await start(s, "square");
    let body: Record<string, string> = {};
    nock(TOKEN_HOSTS.square.origin)
      .post(TOKEN_HOSTS.square.path, (b) => ((body = bodyOf(b)), true))
      .reply(200, readFixtureJson(TOKEN_HOSTS.square.fixture));
    const state = url.searchParams.get("state") ?? "";
    expect(
      await s.connect.finishConnect("square", callback("square", { code: "AUTHCODE-6", state }), "session-A"),
    ).toMatchObject({ ok: true });
    expect(body["client_secret"]).toBeUndefined();
    expect(s256(body["code_verifier"] ?? "")).toBe(url.searchParams.get("code_challenge"));
  });
});

describe("Redis state store (GETDEL)", () => {
  let redis: TestRedis;
  let client: Redis;
  const prefix = uniquePrefix("connect");
  beforeAll(async () => {
    redis = await startTestRedis();
    client = new Redis(redis.url, { lazyConnect: false, maxRetriesPerRequest: 1 });
  });
  afterAll(async () => {
    await dropPrefix(client, prefix);
    client.disconnect();
    await redis.stop();
  });

  it("a state is taken once across two stores on one Redis, under the prefix, with a TTL", async () => {
    const a = new RedisConnectStateStore(client, prefix);
    const b = new RedisConnectStateStore(client, prefix);
    const s = setup(a);
    nock.enableNetConnect("127.0.0.1");
    const state = (await start(s, "google")).searchParams.get("state") ?? "";
    const ttl = await client.pttl(a.key(state));
    expect(ttl).toBeGreaterThan(9 * 60_000);
    expect(ttl).toBeLessThanOrEqual(10 * 60_000);
    const both = await Promise.all([a.take(state), b.take(state)]);
    expect(both.filter((x) => x !== undefined)).toHaveLength(1);
    expect(both.find((x) => x !== undefined)).toMatchObject({
      provider: "google",
      hostId: "salon",
      sessionId: "session-A",
    });
    expect(await client.exists(a.key(state))).toBe(0);
  });
});
