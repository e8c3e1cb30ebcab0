/**
 * The Connect routes as the gateway will mount them (a Hono sub-app, with the operator guard and
 * session lookup passed in): start redirects to the provider with a state bound to the session,
 * the callback finishes and sends the operator back to the console, and a refused callback
 * answers a page with the reason (no token, code or secret in it).
 */
import { randomBytes } from "node:crypto";
import type { MiddlewareHandler } from "hono";
import nock from "nock";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parseKeyRing } from "../../../../src/gateway/credentials/key-ring.js";
import { MemorySealedStore } from "../../../../src/gateway/credentials/store.js";
import { TokenVault } from "../../../../src/gateway/credentials/vault.js";
import { createConnect } from "../../../../src/edges/console/connect/flow.js";
import { resolveProviders } from "../../../../src/edges/console/connect/providers.js";
import { connectRoutes } from "../../../../src/edges/console/connect/routes.js";
import { MemoryConnectStateStore } from "../../../../src/edges/console/connect/state-store.js";
import { readFixtureJson } from "../../../support/fixtures.js";

const BASE = "https://gateway.example.test";
const env = { MS_ID: "ms-client", MS_SECRET: "MS-SECRET-never-shown" };

function app() {
  const ring = parseKeyRing(`k1:${randomBytes(32).toString("base64")}`);
  if (!ring.ok) throw new Error(ring.error);
  const vault = new TokenVault(ring.value, new MemorySealedStore());
  const connect = createConnect({
    providers: resolveProviders(
      {
        publicBaseUrl: BASE,
        microsoft: { clientIdEnv: "MS_ID", clientSecretEnv: "MS_SECRET", tenant: "organizations" },
      },
      env,
    ),
    states: new MemoryConnectStateStore(),
    vault,
  });
  const requireOperator: MiddlewareHandler = async (c, next) => {
    if (c.req.header("x-operator") !== "yes") return c.text("operator sign-in required", 401);
    await next();
  };
  const sessionOf = (r: Request) => /(?:^|;\s*)sid=([^;]+)/.exec(r.headers.get("cookie") ?? "")?.[1];
  return { routes: connectRoutes({ connect, requireOperator, sessionOf }), vault };
}

const as = (sid: string) => ({ headers: { "x-operator": "yes", cookie: `sid=${sid}` } });

beforeEach(() => nock.disableNetConnect());
afterEach(() => {
  nock.cleanAll();
  nock.enableNetConnect();
});

describe("connect routes", () => {
  it("start → 302 to Microsoft; callback → one code exchange, 303 to the console, grant in the vault", async () => {
    const { routes, vault } = app();
    const started = await routes.request(`${BASE}/connect/microsoft/start?host=salon`, as("S1"));
    expect(started.status).toBe(302);
    const location = new URL(started.headers.get("location") ?? "");
    expect(`${location.origin}${location.pathname}`).toBe(
      "https://login.microsoftonline.com/organizations/oauth2/v2.0/authorize",
    );
    const state = location.searchParams.get("state") ?? "";
    const token = nock("https://login.microsoftonline.com")
      .post("/organizations/oauth2/v2.0/token")
      .once()
      .reply(200, readFixtureJson("microsoft/oauth-code-granted.json"));
    const cb = `${BASE}/connect/microsoft/callback?code=AUTHCODE-R&state=${state}`;
    const done = await routes.request(cb, as("S1"));
    expect(done.status).toBe(303);
    expect(done.headers.get("location")).toBe("/");
    token.done();
    expect(await vault.get("salon")).toMatchObject({
      provider: "microsoft",
      refreshToken: "M.C.TEST-CODE-microsoft-refresh",
    });

    const replay = await routes.request(cb, as("S1"));
    expect(replay.status).toBe(400);
    expect(await replay.text()).toContain("already used");
  });

  it("a callback in another session is refused with 403 and stores nothing", async () => {
    const { routes, vault } = app();
    const started = await routes.request(`${BASE}/connect/microsoft/start?host=salon`, as("S1"));
    const state = new URL(started.headers.get("location") ?? "").searchParams.get("state") ?? "";
    const r = await routes.request(
      `${BASE}/connect/microsoft/callback?code=AUTHCODE-X&state=${state}`,
      as("S2"),
    );
    expect(r.status).toBe(403);
    expect(await r.text()).toContain("another console session");
    expect(await vault.get("salon")).toBeUndefined();
  });

  it("a denied consent answers a page that explains it", async () => {
    const { routes } = app();
    const started = await routes.request(`${BASE}/connect/microsoft/start?host=salon`, as("S1"));
    const state = new URL(started.headers.get("location") ?? "").searchParams.get("state") ?? "";
    const r = await routes.request(
      `${BASE}/connect/microsoft/callback?error=access_denied&error_description=%3Cscript%3E&state=${state}`,
      as("S1"),
    );
    expect(r.status).toBe(400);
    const page = await r.text();
    expect(page).toContain("Microsoft access was not granted");
    expect(page).not.toContain("<script>");
    expect(page).not.toContain(env.MS_SECRET);
  });

  it("needs an operator and a session; unknown or unconfigured providers are 404", async () => {
    const { routes } = app();
    expect((await routes.request(`${BASE}/connect/microsoft/start?host=salon`)).status).toBe(401);
    expect(
      (
        await routes.request(`${BASE}/connect/microsoft/start?host=salon`, {
          headers: { "x-operator": "yes" },
        })
      ).status,
    ).toBe(401);
    expect((await routes.request(`${BASE}/connect/github/start?host=salon`, as("S1"))).status).toBe(404);
    expect((await routes.request(`${BASE}/connect/google/start?host=salon`, as("S1"))).status).toBe(404);
  });
});
