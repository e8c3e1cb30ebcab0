/**
 * Disconnect as the gateway serves it: the real app on the
 * real runtime, behind the console's sessions, with Google Calendar hosts whose grants live in
 * the token vault. Google's revocation endpoint is faked with nock (no network). After a
 * disconnect the grant is gone from the vault, the host needs reconnection and its time is
 * refused with host_needs_reconnection — also when the revocation failed, which the owner is
 * told. The form is refused without the session's CSRF token or from another origin.
 */
import { randomBytes } from "node:crypto";
import nock from "nock";
import type { Hono } from "hono";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { EMBEDDED_CALENDAR_CONFIG, EMBEDDED_DEFAULT_CONFIG } from "../../../../src/booking/hosts/index.js";
import { hostTimeRefusal } from "../../../../src/booking/hosts/refusals.js";
import { parseKeyRing } from "../../../../src/gateway/credentials/key-ring.js";
import type { TokenRecord } from "../../../../src/gateway/credentials/record.js";
import { MemorySealedStore } from "../../../../src/gateway/credentials/store.js";
import { TokenVault } from "../../../../src/gateway/credentials/vault.js";
import { createHttpApp } from "../../../../src/gateway/app/app.js";
import { startGateway, type E2eGateway } from "../../../e2e/support/gateway.js";

const COOKIE = "gw_session";
const env = { GOOGLE_CLIENT_ID: "google-client", GOOGLE_CLIENT_SECRET: "GOOGLE-SECRET-never-shown" };

let gw: E2eGateway;
let app: Hono;
let vault: TokenVault;
const lines: string[] = [];

function calendarHost(id: string, name: string): Record<string, unknown> {
  const [host] = structuredClone(EMBEDDED_CALENDAR_CONFIG).hosts as unknown as Record<string, unknown>[];
  return {
    ...host,
    id,
    name,
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

const grant = (n: string): TokenRecord => ({
  provider: "google",
  accessToken: `ya29.ACCESS-${n}`,
  refreshToken: `1//REFRESH-${n}`,
  expiresAt: Date.now() + 3_600_000,
  tokenEndpoint: "https://oauth2.googleapis.com/token",
});

beforeAll(async () => {
  const ring = parseKeyRing(`k1:${randomBytes(32).toString("base64")}`);
  if (!ring.ok) throw new Error(ring.error);
  vault = new TokenVault(ring.value, new MemorySealedStore());
  const config = structuredClone(EMBEDDED_DEFAULT_CONFIG) as unknown as { hosts: unknown[] };
  config.hosts.push(calendarHost("ana-google", "Ana <Tutor>"), calendarHost("bo-google", "Bo"));
  const log = (m: string, f?: Readonly<Record<string, unknown>>) => lines.push(JSON.stringify({ m, ...f }));
  gw = await startGateway({
    config,
    runtime: {
      workers: false,
      credentials: { vault, env },
      connect: { google: { clientIdEnv: "GOOGLE_CLIENT_ID", clientSecretEnv: "GOOGLE_CLIENT_SECRET" } },
      logger: { info: log, warn: log, error: log },
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
const FORM = { "content-type": "application/x-www-form-urlencoded" };

async function signIn(): Promise<string> {
  const res = await app.request(url("/console/sign-in"), {
    method: "POST",
    headers: { ...FORM, origin: gw.origin, "sec-fetch-site": "same-origin" },
    body: new URLSearchParams({ credential: gw.runtime.operatorToken }).toString(),
  });
  expect(res.status).toBe(303);
  const m = new RegExp(`${COOKIE}=([^;]*)`).exec(res.headers.get("set-cookie") ?? "");
  if (m === null) throw new Error("no session cookie");
  return `${COOKIE}=${m[1]}`;
}

/** The confirmation page, and the CSRF token its form carries. */
async function confirm(cookie: string, path: string): Promise<{ html: string; csrf: string }> {
  const res = await app.request(url(path), { headers: { cookie } });
  expect(res.status).toBe(200);
  const html = await res.text();
  const csrf = /name="csrf" value="([^"]+)"/.exec(html)?.[1];
  if (csrf === undefined) throw new Error("no csrf field");
  return { html, csrf };
}

const post = (path: string, cookie: string, csrf: string | undefined, headers: Record<string, string> = {}) =>
  app.request(url(path), {
    method: "POST",
    headers: { ...FORM, cookie, origin: gw.origin, "sec-fetch-site": "same-origin", ...headers },
    body: csrf === undefined ? "" : new URLSearchParams({ csrf }).toString(),
  });

const refusalOf = (hostId: string) => {
  const host = gw.runtime.hosts.get(hostId);
  if (host === undefined) throw new Error(`no host ${hostId}`);
  return hostTimeRefusal(host, Date.now());
};

describe("disconnect a vault host from the console", () => {
  it("is refused without the session's CSRF token, cross-site, or from another origin; nothing changes", async () => {
    await vault.put("ana-google", grant("a"));
    const cookie = await signIn();
    const { csrf } = await confirm(cookie, "/connect/google/disconnect?host=ana-google");
    const revoke = nock("https://oauth2.googleapis.com").post("/revoke").reply(200, {});
    const path = "/connect/google/disconnect?host=ana-google";
    expect((await post(path, cookie, undefined)).status).toBe(403);
    expect((await post(path, cookie, "not-the-token")).status).toBe(403);
    expect((await post(path, cookie, csrf, { "sec-fetch-site": "cross-site" })).status).toBe(403);
    expect((await post(path, cookie, csrf, { origin: "https://evil.example" })).status).toBe(403);
    // No session: the console's guard sends it to sign-in.
    const anonymous = await app.request(url(path), {
      method: "POST",
      headers: { ...FORM, origin: gw.origin, "sec-fetch-site": "same-origin" },
      body: new URLSearchParams({ csrf }).toString(),
    });
    expect(anonymous.status).toBe(303);
    expect(revoke.isDone()).toBe(false);
    expect(await vault.get("ana-google")).toBeDefined();
    expect(refusalOf("ana-google")).toBeUndefined();
  });

  it("GET asks first: names the host, what is revoked, that it stops offering time", async () => {
    const cookie = await signIn();
    const { html } = await confirm(cookie, "/connect/google/disconnect?host=ana-google");
    expect(html).toContain("Disconnect Ana &lt;Tutor&gt;?");
    expect(html).toContain("This revokes the gateway's Google access and deletes its grant");
    expect(html).toContain("stops offering time");
    expect(html).toContain('<form method="post" action="/connect/google/disconnect?host=ana-google">');
    // A host from the wrong source, or one that keeps no credentials here: nothing to disconnect.
    expect(
      (await app.request(url("/connect/square/disconnect?host=ana-google"), { headers: { cookie } })).status,
    ).toBe(404);
    expect(
      (await app.request(url("/connect/google/disconnect?host=nope"), { headers: { cookie } })).status,
    ).toBe(404);
  });

  it("POST revokes the refresh token at Google, deletes the grant, refuses the host's time, and says so", async () => {
    await vault.put("ana-google", grant("a"));
    const cookie = await signIn();
    const { csrf } = await confirm(cookie, "/connect/google/disconnect?host=ana-google");
    let body = "";
    const revoke = nock("https://oauth2.googleapis.com")
      .post("/revoke", (b: unknown) => {
        body = new URLSearchParams(b as Record<string, string>).toString();
        return true;
      })
      .reply(200, {});
    const res = await post("/connect/google/disconnect?host=ana-google", cookie, csrf);
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/");
    expect(revoke.isDone()).toBe(true);
    expect(body).toBe("token=1%2F%2FREFRESH-a");
    expect(await vault.get("ana-google")).toBeUndefined();
    expect(refusalOf("ana-google")).toMatchObject({ reason: "host_needs_reconnection" });
    const health = gw.runtime.hosts.get("ana-google")?.health?.status();
    expect(health?.health).toBe("needs_reconnection");
    expect(health?.lastError?.message).toContain("disconnected by its owner");
    const home = await (await app.request(url("/"), { headers: { cookie } })).text();
    expect(home).toContain("Ana &lt;Tutor&gt;: Disconnected: the gateway&#39;s Google access was revoked");
    const logged = lines.filter((l) => l.includes('"host disconnected"'));
    expect(logged.at(-1)).toContain('"upstream":"revoked"');
    expect(lines.join("\n")).not.toMatch(/REFRESH-a|ACCESS-a|GOOGLE-SECRET/);
  });

  it("a failed revocation is reported, but the grant is still deleted and the host still offers no time", async () => {
    await vault.put("bo-google", grant("b"));
    const cookie = await signIn();
    const { csrf } = await confirm(cookie, "/connect/google/disconnect?host=bo-google");
    nock("https://oauth2.googleapis.com").post("/revoke").reply(503, { error: "backend_error" });
    const res = await post("/connect/google/disconnect?host=bo-google", cookie, csrf);
    expect(res.status).toBe(303);
    expect(await vault.get("bo-google")).toBeUndefined();
    expect(refusalOf("bo-google")).toMatchObject({ reason: "host_needs_reconnection" });
    const home = await (await app.request(url("/"), { headers: { cookie } })).text();
    expect(home).toContain("revocation failed; remove access at your Google Account");
    expect(lines.at(-1)).toContain('"upstream":"failed"');
    expect(lines.at(-1)).toContain('"status":503');
  });
});
