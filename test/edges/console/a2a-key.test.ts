/**
 * A host's Servicialo A2A API key from the console (generated and shown to the
 * operator, never valid for another host), in process on the real runtime: Operate links
 * "A2A key" for a host whose upstream can cancel; the key is issued only by a same-origin POST
 * carrying the session's CSRF token, shown once, works on that host's cancel endpoint (the key
 * check passes: 404 for an unknown session, not 401), not on another host's, and a second key
 * retires the first. A business owner cannot issue a key for a host that is not theirs.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Hono } from "hono";
import { createHttpApp } from "../../../src/gateway/app/app.js";
import { defaultConfig, startGateway, type E2eGateway } from "../../e2e/support/gateway.js";

let gw: E2eGateway;
let app: Hono;
const HOST = "fades-on-queen";
const OTHER = "maple-street-auto";

beforeAll(async () => {
  gw = await startGateway({ config: defaultConfig(), runtime: { workers: false, trustForwardedFor: true } });
  app = createHttpApp(gw.runtime);
});
afterAll(async () => {
  await gw?.close();
});

const url = (path: string) => `${gw.origin}${path}`;
let ip = 10;

function post(path: string, form: Record<string, string>, cookie: string, origin = gw.origin) {
  return app.request(url(path), {
    method: "POST",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      origin,
      "x-forwarded-for": `203.0.113.${ip++}`,
      cookie,
    },
    body: new URLSearchParams(form).toString(),
  });
}

async function get(path: string, cookie: string) {
  const res = await app.request(url(path), { headers: { cookie } });
  const html = await res.text();
  return { status: res.status, html, csrf: /name="csrf" value="([^"]+)"/.exec(html)?.[1] ?? "" };
}

async function signIn(): Promise<string> {
  const res = await post("/console/sign-in", { credential: gw.runtime.operatorToken }, "");
  const m = /gw_session=([^;]+)/.exec(res.headers.get("set-cookie") ?? "");
  if (m === null) throw new Error(`no session (${res.status})`);
  return `gw_session=${m[1]}`;
}

const cancelWith = (hostId: string, key: string) =>
  app.request(url(`/api/servicialo/${hostId}/sessions/no-such-session/cancel`), {
    method: "POST",
    headers: { "content-type": "application/json", "x-org-api-key": key },
    body: JSON.stringify({ reason: "test" }),
  });

const keyOf = (html: string) => /id="key" type="text" readonly value="([^"]+)"/.exec(html)?.[1];

describe("the A2A API key page", () => {
  it("issues a key shown once, valid for its host only; a new key retires the old", async () => {
    const cookie = await signIn();
    const operate = await get("/", cookie);
    expect(operate.html).toContain(`href="/console/hosts/${HOST}/a2a-key"`);

    const page = await get(`/console/hosts/${HOST}/a2a-key`, cookie);
    expect(page.status).toBe(200);
    expect(page.html).toContain("X-Org-Api-Key");

    // No CSRF token, or another origin: refused, nothing issued.
    expect((await post(`/console/hosts/${HOST}/a2a-key`, {}, cookie)).status).toBe(403);
    expect(
      (await post(`/console/hosts/${HOST}/a2a-key`, { csrf: page.csrf }, cookie, "https://evil.example"))
        .status,
    ).toBe(403);

    const issued = await post(`/console/hosts/${HOST}/a2a-key`, { csrf: page.csrf }, cookie);
    expect(issued.status).toBe(200);
    expect(issued.headers.get("cache-control")).toBe("no-store");
    const first = keyOf(await issued.text());
    expect(first).toMatch(/^gk_/);

    expect((await cancelWith(HOST, first!)).status).toBe(404); // past the key check
    expect((await cancelWith(OTHER, first!)).status).toBe(401); // never another host's

    const again = keyOf(
      await (await post(`/console/hosts/${HOST}/a2a-key`, { csrf: page.csrf }, cookie)).text(),
    );
    expect(again).not.toBe(first);
    expect((await cancelWith(HOST, first!)).status).toBe(401);
    expect((await cancelWith(HOST, again!)).status).toBe(404);
  });

  it("an unknown host, or one the owner does not manage, is not found", async () => {
    const cookie = await signIn();
    expect((await get("/console/hosts/nope/a2a-key", cookie)).status).toBe(404);
    const invited = await gw.runtime.console!.accounts.invite("owner@example.com");
    if (!invited.ok) throw new Error("invite failed");
    await gw.runtime.console!.accounts.accept(invited.value.token, "a long enough password");
    const { id } = await gw.runtime.console!.sessions.create({
      kind: "owner",
      ownerId: invited.value.account.ownerId,
      email: invited.value.account.email,
    });
    const owner = `gw_session=${id}`;
    const page = await get(`/console/hosts/${HOST}/a2a-key`, owner);
    expect(page.status).toBe(404);
    const csrf = (await get("/", owner)).csrf;
    expect((await post(`/console/hosts/${HOST}/a2a-key`, { csrf }, owner)).status).toBe(404);
  });
});
