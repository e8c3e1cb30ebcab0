/**
 * Add a business → set up → active, in process on the real runtime, with the ManagedHosts test
 * double; what a gateway without a token vault offers and says; deleting a draft.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Hono } from "hono";
import { createHttpApp } from "../../../../src/gateway/app/app.js";
import { OPERATOR_OWNER } from "../../../../src/edges/console/managed-hosts.js";
import type { SetupChoices } from "../../../../src/edges/console/setup/choices.js";
import { ok } from "../../../../src/protocol/result.js";
import { startGateway, type E2eGateway } from "../../../e2e/support/gateway.js";
import { memoryManagedHosts } from "../../../support/memory-managed-hosts.js";

let gw: E2eGateway;
let app: Hono;
/** The same gateway without a token vault (no setupChoices): it cannot keep a CalDAV password. */
let bare: Hono;
const managed = memoryManagedHosts();
const bareManaged = memoryManagedHosts();
const choices: SetupChoices = {
  load: () =>
    Promise.resolve(
      ok({ kind: "calendar", calendars: [{ id: "cal-1", name: "Work", primary: true, writable: true }] }),
    ),
  connectCaldav: () => Promise.resolve({ ok: true, value: [] }),
};

beforeAll(async () => {
  gw = await startGateway({ runtime: { workers: false, trustForwardedFor: true } });
  app = createHttpApp({
    ...gw.runtime,
    managedHosts: managed,
    console: { ...gw.runtime.console!, setupChoices: choices },
  });
  bare = createHttpApp({ ...gw.runtime, managedHosts: bareManaged, console: gw.runtime.console! });
});
afterAll(async () => {
  await gw?.close();
});

const url = (p: string) => `${gw.origin}${p}`;
const post = (p: string, form: URLSearchParams, cookie: string, on: Hono = app) =>
  on.request(url(p), {
    method: "POST",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      origin: gw.origin,
      "sec-fetch-site": "same-origin",
      cookie,
    },
    body: form.toString(),
  });

async function signIn(): Promise<{ cookie: string; csrf: string }> {
  const res = await post(
    "/console/sign-in",
    new URLSearchParams({ credential: gw.runtime.operatorToken }),
    "",
  );
  const cookie = /gw_session=[^;]*/.exec(res.headers.get("set-cookie") ?? "")![0];
  const html = await (await app.request(url("/"), { headers: { cookie } })).text();
  expect(html).toContain('href="/console/hosts/new"');
  return { cookie, csrf: /name="csrf" value="([^"]+)"/.exec(html)![1]! };
}

describe("Add a business, then set it up", () => {
  it("draft → setup form → activate, the flash naming the discovery URL", async () => {
    const { cookie, csrf } = await signIn();
    const form = await (await app.request(url("/console/hosts/new"), { headers: { cookie } })).text();
    expect(form).toContain('<label for="timezone">');
    const add = await post(
      "/console/hosts/new",
      new URLSearchParams({ csrf, name: "Ana Physio", timezone: "Europe/Madrid", source: "caldav" }),
      cookie,
    );
    expect(add.status).toBe(303);
    expect(add.headers.get("location")).toBe("/console/hosts/ana-physio/caldav");
    expect((await managed.store.get("ana-physio"))?.state).toBe("draft");

    const page = await (
      await app.request(url("/console/hosts/ana-physio/setup"), { headers: { cookie } })
    ).text();
    // The account's only calendar is ticked, to read and to write into; prices in the zone's currency.
    expect(page).toContain('name="read" value="cal-1" checked>');
    expect(page).toContain('name="write" value="cal-1" checked>');
    expect(page).toContain('id="svc0_currency" name="svc0_currency" value="EUR"');
    // The console's banner and navigation are on the page.
    expect(page).toMatch(/<header><a class="brand" href="\/">.*<nav aria-label="Account">/);
    const setup = new URLSearchParams({
      csrf,
      read: "cal-1",
      write: "cal-1",
      capacity: "me",
      svc0_name: "Session",
      svc0_duration: "45",
      d1_open: "09:00",
      d1_close: "14:00",
      approver_email: "",
      confirmation: "host_approval",
      retention: "365",
      access: "public",
      hold_ttl: "10",
      holds_per_agent: "3",
    });
    const refused = await post("/console/hosts/ana-physio/setup", setup, cookie);
    expect(refused.status).toBe(400);
    const html = await refused.text();
    expect(html).toContain('role="alert"');
    expect(html).toContain('id="approver_email-error"');
    expect(html).toContain('value="Session"');

    setup.set("approver_email", "ana@example.com");
    const done = await post("/console/hosts/ana-physio/setup", setup, cookie);
    expect(done.status).toBe(303);
    expect(managed.activated).toContain("ana-physio");
    expect((await managed.store.get("ana-physio"))?.state).toBe("active");
    const home = await (await app.request(url("/"), { headers: { cookie } })).text();
    expect(home).toContain(`${gw.origin}/hosts/ana-physio/scheduling.json`);
  });

  it("another owner's host answers 404, as a missing one; a POST without CSRF is refused", async () => {
    // A real owner account (accounts.ts): a viewer naming an unknown or disabled owner is refused.
    const invited = await gw.runtime.console!.accounts.invite("a@example.com");
    if (!invited.ok) throw new Error("invite failed");
    await gw.runtime.console!.accounts.accept(invited.value.token, "a long enough password");
    await managed.store.put({
      id: "someone-else",
      owner: "owner-b",
      source: "google",
      state: "draft",
      config: { id: "someone-else", name: "B", timezone: "UTC" },
      createdAt: 1,
      updatedAt: 1,
    });
    const { id } = await gw.runtime.console!.sessions.create({
      kind: "owner",
      ownerId: invited.value.account.ownerId,
      email: invited.value.account.email,
    });
    const cookie = `gw_session=${id}`;
    expect(
      (await app.request(url("/console/hosts/someone-else/setup"), { headers: { cookie } })).status,
    ).toBe(404);
    expect((await app.request(url("/console/hosts/nope/setup"), { headers: { cookie } })).status).toBe(404);
    expect(OPERATOR_OWNER).toBe("operator");
    const res = await post("/console/hosts/new", new URLSearchParams({ name: "X" }), cookie);
    expect(res.status).toBe(403);
  });
});

describe("without a token vault, and deleting a draft", () => {
  it("Add a business offers no CalDAV and names what turns it on; nothing is created", async () => {
    const { cookie, csrf } = await signIn();
    const res = await bare.request(url("/console/hosts/new"), { headers: { cookie } });
    const html = await res.text();
    expect(html).not.toContain('value="caldav"');
    expect(html).toContain("This gateway cannot connect a business's calendar or booking system yet.");
    expect(html).toContain(
      "CalDAV calendar (iCloud, Fastmail, Nextcloud…): the gateway&#39;s operator turns it on by setting TOKEN_KEYS",
    );
    expect(html).toContain("GOOGLE_CLIENT_ID and GOOGLE_CLIENT_SECRET, and TOKEN_KEYS");
    const add = await post(
      "/console/hosts/new",
      new URLSearchParams({ csrf, name: "Bo Studio", timezone: "Europe/Madrid", source: "caldav" }),
      cookie,
      bare,
    );
    expect(add.status).toBe(400);
    expect(await bareManaged.store.get("bo-studio")).toBeUndefined();
  });

  it("a CalDAV draft made before says why it cannot be connected, and is deleted with its confirmation", async () => {
    const { cookie, csrf } = await signIn();
    await bareManaged.store.put({
      id: "old-draft",
      owner: OPERATOR_OWNER,
      source: "caldav",
      state: "draft",
      config: {
        id: "old-draft",
        name: "Old Draft",
        timezone: "Europe/Madrid",
        connector: { type: "caldav", settings: {} },
      },
      createdAt: 1,
      updatedAt: 1,
    });
    const home = await (await bare.request(url("/"), { headers: { cookie } })).text();
    expect(home).toContain('href="/console/hosts/old-draft/caldav" aria-label="Continue setup of Old Draft"');
    expect(home).toContain('href="/console/hosts/old-draft/delete" aria-label="Delete Old Draft"');
    const caldav = await bare.request(url("/console/hosts/old-draft/caldav"), { headers: { cookie } });
    expect(caldav.status).toBe(503);
    const page = await caldav.text();
    expect(page).toContain("This gateway cannot keep CalDAV passwords: it has no token vault.");
    expect(page).toContain("TOKEN_KEYS");
    expect(page).not.toContain('name="password"');

    const confirm = await bare.request(url("/console/hosts/old-draft/delete"), { headers: { cookie } });
    expect(confirm.status).toBe(200);
    expect(await confirm.text()).toContain("<h1>Delete Old Draft?</h1>");
    // Not without the session's token.
    expect(
      (await post("/console/hosts/old-draft/delete", new URLSearchParams({}), cookie, bare)).status,
    ).toBe(403);
    const deleted = await post(
      "/console/hosts/old-draft/delete",
      new URLSearchParams({ csrf }),
      cookie,
      bare,
    );
    expect(deleted.status).toBe(303);
    expect(await bareManaged.store.get("old-draft")).toBeUndefined();
    const after = await (await bare.request(url("/"), { headers: { cookie } })).text();
    expect(after).toContain("Deleted Old Draft.");
    expect(after).not.toContain("drafts-h");
  });

  it("only a draft is deleted here: a business set up answers 404", async () => {
    const { cookie, csrf } = await signIn();
    await bareManaged.store.put({
      id: "live-one",
      owner: OPERATOR_OWNER,
      source: "caldav",
      state: "active",
      config: { id: "live-one", name: "Live One", timezone: "UTC" },
      createdAt: 1,
      updatedAt: 1,
    });
    expect((await bare.request(url("/console/hosts/live-one/delete"), { headers: { cookie } })).status).toBe(
      404,
    );
    expect(
      (await post("/console/hosts/live-one/delete", new URLSearchParams({ csrf }), cookie, bare)).status,
    ).toBe(404);
    expect((await bareManaged.store.get("live-one"))?.state).toBe("active");
  });
});

describe("a host's own page: its week", () => {
  it("served to who may manage the host, with its own stylesheet allowed; a draft goes on to setup", async () => {
    const { cookie } = await signIn();
    const res = await app.request(url("/console/hosts/maple-street-auto"), { headers: { cookie } });
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toMatch(/<h1>Maple Street Auto: week of \d{1,2} \w{3} \d{4}<\/h1>/);
    expect(res.headers.get("content-security-policy")).toMatch(/style-src 'sha256-[^']+' 'sha256-[^']+';/);
    await managed.store.put({
      id: "half-done",
      owner: OPERATOR_OWNER,
      source: "caldav",
      state: "draft",
      config: { id: "half-done", name: "Half Done", timezone: "UTC" },
      createdAt: 1,
      updatedAt: 1,
    });
    const draft = await app.request(url("/console/hosts/half-done"), { headers: { cookie } });
    expect(draft.status).toBe(303);
    expect(draft.headers.get("location")).toBe("/console/hosts/half-done/setup");
    expect((await app.request(url("/console/hosts/nobody"), { headers: { cookie } })).status).toBe(404);
    // Not signed in: the sign-in page.
    expect((await app.request(url("/console/hosts/maple-street-auto"))).status).toBe(303);
  });

  it("another owner's host is not found, as one that does not exist", async () => {
    const invited = await gw.runtime.console!.accounts.invite("week@example.com");
    if (!invited.ok) throw new Error("invite failed");
    await gw.runtime.console!.accounts.accept(invited.value.token, "a long enough password");
    const { id } = await gw.runtime.console!.sessions.create({
      kind: "owner",
      ownerId: invited.value.account.ownerId,
      email: invited.value.account.email,
    });
    const cookie = `gw_session=${id}`;
    // A config-file host is the operator's; another owner's record is theirs.
    expect((await app.request(url("/console/hosts/maple-street-auto"), { headers: { cookie } })).status).toBe(
      404,
    );
    expect((await app.request(url("/console/hosts/someone-else"), { headers: { cookie } })).status).toBe(404);
  });
});
