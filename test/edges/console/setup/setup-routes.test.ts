/** Add a business → set up → active, in process on the real runtime, with the ManagedHosts test double. */
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
const managed = memoryManagedHosts();
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
});
afterAll(async () => {
  await gw?.close();
});

const url = (p: string) => `${gw.origin}${p}`;
const post = (p: string, form: URLSearchParams, cookie: string) =>
  app.request(url(p), {
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
    expect(page).toContain('value="cal-1"');
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
