/**
 * Connect and disconnect as the gateway mounts them for business owners as well as the operator:
 * an owner connects and disconnects only their own console-created hosts; a draft
 * goes on to its setup page after the grant; a config-file host is the operator's, and
 * reconnecting it reads its catalog at once (its "needs reconnection" clears then, not at the
 * next scheduled check); the Operate page links Settings and Disconnect; disconnect is served
 * on a gateway with a vault and no OAuth client; the runtime's setup choices go through the
 * connectors' fetch to the connectors' own origins. Google's token endpoint is faked with nock
 * from fixtures/google/oauth-code-granted.json.
 */
import { randomBytes } from "node:crypto";
import type { Hono } from "hono";
import nock from "nock";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { EMBEDDED_CALENDAR_CONFIG, EMBEDDED_DEFAULT_CONFIG } from "../../../../src/booking/hosts/index.js";
import { parseKeyRing } from "../../../../src/gateway/credentials/key-ring.js";
import { MemorySealedStore } from "../../../../src/gateway/credentials/store.js";
import { TokenVault } from "../../../../src/gateway/credentials/vault.js";
import { createHttpApp } from "../../../../src/gateway/app/app.js";
import type { ManagedHostRecord } from "../../../../src/edges/console/managed-hosts.js";
import { readFixtureJson } from "../../../support/fixtures.js";
import { memoryManagedHosts } from "../../../support/memory-managed-hosts.js";
import { startGateway, type E2eGateway } from "../../../e2e/support/gateway.js";

const env = { GOOGLE_CLIENT_ID: "google-client", GOOGLE_CLIENT_SECRET: "GOOGLE-SECRET-never-shown" };
const vaultSettings = {
  credentials: "vault",
  clientIdEnv: "GOOGLE_CLIENT_ID",
  clientSecretEnv: "GOOGLE_CLIENT_SECRET",
};

function newVault(): TokenVault {
  const ring = parseKeyRing(`k1:${randomBytes(32).toString("base64")}`);
  if (!ring.ok) throw new Error(ring.error);
  return new TokenVault(ring.value, new MemorySealedStore());
}

function calendarHost(): Record<string, unknown> {
  const [host] = structuredClone(EMBEDDED_CALENDAR_CONFIG).hosts as unknown as Record<string, unknown>[];
  return { ...host, id: "ana-google", name: "Ana", connector: { type: "google", settings: vaultSettings } };
}

const record = (
  id: string,
  owner: string,
  source: ManagedHostRecord["source"],
  state: ManagedHostRecord["state"],
  settings: Record<string, unknown> = vaultSettings,
): ManagedHostRecord => ({
  id,
  owner,
  source,
  state,
  config: { id, name: `Shop ${id}`, timezone: "UTC", connector: { type: source, settings } },
  createdAt: 1,
  updatedAt: 1,
});

let gw: E2eGateway;
let app: Hono;
let vault: TokenVault;
const managed = memoryManagedHosts(["ana-google"]);
const upstreamCalls: string[] = [];
let ownerA: string;
let ownerB: string;

beforeAll(async () => {
  vault = newVault();
  const config = structuredClone(EMBEDDED_DEFAULT_CONFIG) as unknown as { hosts: unknown[] };
  config.hosts.push(calendarHost());
  gw = await startGateway({
    config,
    runtime: {
      workers: false,
      credentials: { vault, env },
      connect: { google: { clientIdEnv: "GOOGLE_CLIENT_ID", clientSecretEnv: "GOOGLE_CLIENT_SECRET" } },
      // What the connectors (and so the setup choices) call: recorded, answered as Google would.
      connectorFetch: (input) => {
        const href = input instanceof Request ? input.url : input instanceof URL ? input.href : input;
        upstreamCalls.push(href);
        return Promise.resolve(
          Response.json({
            items: [{ id: "primary@example.com", summary: "Work", primary: true, accessRole: "owner" }],
          }),
        );
      },
    },
  });
  app = createHttpApp({ ...gw.runtime, managedHosts: managed });
  const accounts = gw.runtime.console!.accounts;
  for (const email of ["a@example.com", "b@example.com"]) {
    const invited = await accounts.invite(email);
    if (!invited.ok) throw new Error("invite failed");
    await accounts.accept(invited.value.token, "a long enough password");
    if (email.startsWith("a")) ownerA = invited.value.account.ownerId;
    else ownerB = invited.value.account.ownerId;
  }
  for (const r of [
    record("a-draft", ownerA, "google", "draft"),
    record("a-active", ownerA, "google", "active"),
    record("a-gone", ownerA, "google", "disconnected"),
    record("a-square", ownerA, "square", "draft", { credentials: "vault", environment: "production" }),
    record("a-file", ownerA, "google", "draft", { accessTokenFile: "/t" }),
    record("b-draft", ownerB, "google", "draft"),
  ])
    await managed.store.put(r);
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
const get = (path: string, cookie: string) =>
  app.request(url(path), { headers: { cookie, "sec-fetch-site": "same-origin" } });

async function sessionOf(who: "operator" | "a" | "b"): Promise<string> {
  const { id } = await gw.runtime.console!.sessions.create(
    who === "operator"
      ? undefined
      : { kind: "owner", ownerId: who === "a" ? ownerA : ownerB, email: `${who}@example.com` },
  );
  return `gw_session=${id}`;
}

/** Start, then come back from Google with a code the nocked token endpoint grants. */
async function connectGoogle(hostId: string, cookie: string): Promise<Response> {
  const started = await get(`/connect/google/start?host=${hostId}`, cookie);
  expect(started.status, hostId).toBe(302);
  const state = new URL(started.headers.get("location") ?? "").searchParams.get("state") ?? "";
  const token = nock("https://oauth2.googleapis.com")
    .post("/token")
    .once()
    .reply(200, readFixtureJson("google/oauth-code-granted.json"));
  const done = await get(`/connect/google/callback?code=AUTHCODE&state=${state}`, cookie);
  token.done();
  return done;
}

describe("Connect for business owners", () => {
  it("an owner starts only their own draft or active host of that provider with a vault grant", async () => {
    const cookie = await sessionOf("a");
    for (const ok of ["a-draft", "a-active"])
      expect((await get(`/connect/google/start?host=${ok}`, cookie)).status, ok).toBe(302);
    for (const refused of ["b-draft", "a-gone", "a-square", "a-file", "ana-google", "nobody", ""]) {
      const res = await get(`/connect/google/start?host=${refused}`, cookie);
      expect(res.status, refused).toBe(400);
      expect(res.headers.get("location"), refused).toBeNull();
      // The console's layout and policy, and nothing that tells another owner's host from none.
      expect(res.headers.get("content-security-policy"), refused).toContain("default-src 'none'");
      const html = await res.text();
      expect(html, refused).toContain("<style>");
      expect(html, refused).toContain("not yours to manage");
    }
  });

  it("the operator may start any managed draft and the config-file vault host", async () => {
    const cookie = await sessionOf("operator");
    for (const ok of ["b-draft", "ana-google"])
      expect((await get(`/connect/google/start?host=${ok}`, cookie)).status, ok).toBe(302);
    expect((await get(`/connect/google/start?host=a-gone`, cookie)).status).toBe(400);
  });

  it("after the grant, a draft goes on to its setup page, listing the account's calendars", async () => {
    const cookie = await sessionOf("a");
    const done = await connectGoogle("a-draft", cookie);
    expect(done.status).toBe(303);
    expect(done.headers.get("location")).toBe("/console/hosts/a-draft/setup");
    expect(await vault.get("a-draft")).toMatchObject({ provider: "google" });

    upstreamCalls.length = 0;
    const setup = await get("/console/hosts/a-draft/setup", cookie);
    expect(setup.status).toBe(200);
    // createHttpApp gets the runtime's console deps: the choices are the runtime's, through
    // its connectorFetch, at the connector's own origin.
    expect(await setup.text()).toContain('value="primary@example.com"');
    expect(upstreamCalls.map((u) => new URL(u).origin)).toEqual(["https://www.googleapis.com"]);
  });

  it("reconnecting a host that needs reconnection reads its catalog at once and says Connected", async () => {
    const host = gw.runtime.hosts.get("ana-google")!;
    host.health!.upstreamFailed({ code: "unauthorized", message: "grant revoked" }, "test");
    expect(host.health!.status().health).toBe("needs_reconnection");
    const cookie = await sessionOf("operator");
    const done = await connectGoogle("ana-google", cookie);
    expect(done.status).toBe(303);
    expect(done.headers.get("location")).toBe("/");
    expect(host.health!.status().health).toBe("ok");
    const home = await (await get("/", cookie)).text();
    expect(home).toContain("Connected Ana with Google.");
  });

  it("an owner may disconnect only their own host; another's answers 404 as an unknown one", async () => {
    const a = await sessionOf("a");
    expect((await get("/connect/google/disconnect?host=a-active", a)).status).toBe(200);
    for (const refused of ["b-draft", "ana-google", "nobody"])
      expect((await get(`/connect/google/disconnect?host=${refused}`, a)).status, refused).toBe(404);
    const csrf = (await gw.runtime.console!.sessions.use(a.split("=")[1]))!.csrf;
    const post = await app.request(url("/connect/google/disconnect?host=b-draft"), {
      method: "POST",
      headers: {
        cookie: a,
        origin: gw.origin,
        "sec-fetch-site": "same-origin",
        "content-type": "application/x-www-form-urlencoded",
      },
      body: new URLSearchParams({ csrf }).toString(),
    });
    expect(post.status).toBe(404);
    expect((await managed.store.get("b-draft"))?.state).toBe("draft");
    const operator = await sessionOf("operator");
    expect((await get("/connect/google/disconnect?host=b-draft", operator)).status).toBe(200);
  });

  it("Operate links each host's Settings (managed, active) and Disconnect (vault hosts)", async () => {
    // A separate store in which the config-file host is a console-created, active one.
    const other = memoryManagedHosts();
    await other.store.put({ ...record("ana-google", "operator", "google", "active") });
    const operate = createHttpApp({ ...gw.runtime, managedHosts: other });
    const html = await (
      await operate.request(url("/"), { headers: { cookie: await sessionOf("operator") } })
    ).text();
    expect(html).toContain('href="/console/hosts/ana-google/settings"');
    expect(html).toContain('href="/connect/google/disconnect?host=ana-google"');
    // A synthetic host keeps no credentials here: nothing to disconnect, no settings page.
    expect(html).not.toContain("disconnect?host=harbourview-dental");
    expect(html).not.toContain("/console/hosts/harbourview-dental/settings");
  });
});

describe("a gateway with a vault and no OAuth client", () => {
  let solo: E2eGateway;
  afterAll(async () => {
    await solo?.close();
  });

  it("serves disconnect (a CalDAV host's password) but no Connect start", async () => {
    solo = await startGateway({ runtime: { workers: false, credentials: { vault: newVault(), env: {} } } });
    const mh = memoryManagedHosts();
    await mh.store.put(record("cal-shop", "operator", "caldav", "active", { credentials: "vault" }));
    const soloApp = createHttpApp({ ...solo.runtime, managedHosts: mh });
    const { id } = await solo.runtime.console!.sessions.create();
    const cookie = `gw_session=${id}`;
    const page = await soloApp.request(`${solo.origin}/connect/caldav/disconnect?host=cal-shop`, {
      headers: { cookie },
    });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("Disconnect Shop cal-shop?");
    const start = await soloApp.request(`${solo.origin}/connect/google/start?host=cal-shop`, {
      headers: { cookie },
    });
    expect(start.status).toBe(404);
    expect(solo.runtime.console!.setupChoices).toBeDefined();
  });
});
