/**
 * Owners in the console, in process through app.request() on the real runtime:
 * the operator invites two business owners on the Owners page; each sets a password through
 * the invitation page and signs in through the sign-in form; Maple Street Auto belongs to
 * owner A and Harbourview Dental to owner B (managed-host records in a store double; both
 * hosts are host_approval config hosts the runtime serves). Each owner sees only their host;
 * A's answer to B's booking — with A's own valid CSRF token — is refused as an unknown host
 * and changes nothing; the Owners page is the operator's alone.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Hono } from "hono";
import { consoleViewerOf } from "../../../src/edges/console/routes.js";
import { createHttpApp } from "../../../src/gateway/app/app.js";
import { discover, freeSlots, holdAndBook, newAgent } from "../../e2e/support/agents.js";
import { defaultConfig, startGateway, type E2eGateway } from "../../e2e/support/gateway.js";
import { managedHostsDouble, MemoryManagedHostStore, ownedHost } from "../../support/managed-hosts-double.js";

let gw: E2eGateway;
let app: Hono;
const records = new MemoryManagedHostStore();
const COOKIE = "gw_session";
const PASSWORD_A = "ana's long passphrase";
const PASSWORD_B = "bo's other passphrase";

function approvalConfig() {
  const config = defaultConfig();
  const maple = config.hosts.find((h) => h.id === "maple-street-auto")!;
  maple.policies = { confirmation: "host_approval", closed_mandate: "never", retention: "P365D" };
  return config;
}

beforeAll(async () => {
  gw = await startGateway({ config: approvalConfig(), runtime: { workers: false, trustForwardedFor: true } });
  app = createHttpApp({ ...gw.runtime, managedHosts: managedHostsDouble(records) });
});
afterAll(async () => {
  await gw?.close();
});

const url = (path: string) => `${gw.origin}${path}`;
let ip = 10;
const nextIp = () => `203.0.113.${ip++}`;

function post(path: string, form: Record<string, string>, headers: Record<string, string> = {}) {
  return app.request(url(path), {
    method: "POST",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      origin: gw.origin,
      "sec-fetch-site": "same-origin",
      "x-forwarded-for": nextIp(),
      ...headers,
    },
    body: new URLSearchParams(form).toString(),
  });
}

function sessionCookie(res: Response): string {
  const m = new RegExp(`${COOKIE}=([^;]+)`).exec(res.headers.get("set-cookie") ?? "");
  if (m === null) throw new Error(`no session cookie (${res.status})`);
  return `${COOKIE}=${m[1]}`;
}

async function get(path: string, cookie?: string) {
  const res = await app.request(url(path), { headers: cookie === undefined ? {} : { cookie } });
  const html = await res.text();
  return { status: res.status, html, csrf: /name="csrf" value="([^"]+)"/.exec(html)?.[1] ?? "" };
}

async function operatorCookie(): Promise<string> {
  return sessionCookie(await post("/console/sign-in", { credential: gw.runtime.operatorToken }));
}

/** The operator invites `email` on the Owners page; the link is read off the answer. */
async function invite(operator: string, email: string): Promise<string> {
  const owners = await get("/console/owners", operator);
  expect(owners.status).toBe(200);
  const res = await post("/console/owners", { csrf: owners.csrf, email }, { cookie: operator });
  expect(res.status).toBe(200);
  const html = await res.text();
  const link = /<code id="invitation-link">([^<]+)<\/code>/.exec(html)?.[1];
  if (link === undefined) throw new Error("no invitation link on the page");
  expect(link.startsWith(`${gw.origin}/console/invite/`)).toBe(true);
  return new URL(link).pathname;
}

async function pending(hostId: string, serviceId: string, fromDays: number): Promise<string> {
  const agent = newAgent(gw);
  const host = await discover(agent, gw, hostId);
  const [slot] = await freeSlots(agent, gw, host, serviceId, { fromDays });
  const booked = await holdAndBook(agent, host, serviceId, slot!.start);
  expect(booked.booking.booking.status).toBe("pending_host");
  return booked.booking.booking.booking_id;
}

async function statusOf(hostId: string, bookingId: string): Promise<string | undefined> {
  const listed = await gw.runtime.api.listBookings(hostId);
  if (!listed.ok) throw new Error(listed.error.message);
  return listed.value.find((b) => b.bookingId === bookingId)?.status;
}

const ownerIdOf = async (email: string) =>
  (await gw.runtime.console!.accounts.list()).find((a) => a.email === email)!.ownerId;

describe("owners see and change only their own hosts", () => {
  let a: string;
  let b: string;
  let mapleBooking: string;
  let dentalBooking: string;

  it("the operator invites two owners; each chooses a password through the link and is signed in", async () => {
    const operator = await operatorCookie();
    const linkA = await invite(operator, "Ana@Maple.example");
    const linkB = await invite(operator, "bo@harbourview.example");

    const page = await get(linkA);
    expect(page.status).toBe(200);
    expect(page.html).toContain("Welcome, ana@maple.example");
    // Too short, then not confirmed: the link is still good after each.
    expect((await post(linkA, { password: "short", confirm: "short" })).status).toBe(400);
    const mismatch = await post(linkA, { password: PASSWORD_A, confirm: `${PASSWORD_A}!` });
    expect(await mismatch.text()).toContain("not the same");
    // From another site: refused.
    expect(
      (await post(linkA, { password: PASSWORD_A, confirm: PASSWORD_A }, { origin: "https://evil.example" }))
        .status,
    ).toBe(403);

    const setA = await post(linkA, { password: PASSWORD_A, confirm: PASSWORD_A });
    expect(setA.status).toBe(303);
    a = sessionCookie(setA);
    expect((await get("/", a)).html).toContain("Signed in as ana@maple.example");
    // Used once: the link is gone.
    expect((await get(linkA)).status).toBe(410);
    expect((await post(linkA, { password: "a new passphrase!", confirm: "a new passphrase!" })).status).toBe(
      410,
    );

    b = sessionCookie(await post(linkB, { password: PASSWORD_B, confirm: PASSWORD_B }));
    expect((await get("/", b)).html).toContain("Signed in as bo@harbourview.example");

    const owners = await get("/console/owners", operator);
    expect(owners.html).toContain("ana@maple.example");
    expect(owners.html).toContain("bo@harbourview.example");
    expect(owners.html).not.toContain("invitation-link");

    await records.put(ownedHost("maple-street-auto", await ownerIdOf("ana@maple.example")));
    await records.put(ownedHost("harbourview-dental", await ownerIdOf("bo@harbourview.example")));
  });

  it("the owner sign-in form: one answer for an unknown email and a wrong password; a new session id", async () => {
    const wrong = await post("/console/sign-in", {
      email: "ana@maple.example",
      password: "not the passphrase",
    });
    const unknown = await post("/console/sign-in", { email: "nobody@maple.example", password: PASSWORD_A });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    const text = (html: string) => /role="alert">([^<]*)</.exec(html)?.[1];
    expect(text(await wrong.text())).toBe(text(await unknown.text()));

    const old = a;
    const res = await post(
      "/console/sign-in",
      { email: "ANA@maple.example", password: PASSWORD_A },
      { cookie: old },
    );
    expect(res.status).toBe(303);
    a = sessionCookie(res);
    expect(a).not.toBe(old);
    // The session the form was sent with ended: no promotion of a known id.
    expect((await get("/", old)).html).toContain("session has ended");
    expect((await get("/", a)).html).toContain("Signed in as ana@maple.example");
  });

  it("each owner's Operate page shows only their host and its pending booking", async () => {
    mapleBooking = await pending("maple-street-auto", "oil-change", 3);
    dentalBooking = await pending("harbourview-dental", "cleaning", 3);

    const pageA = await get("/", a);
    expect(pageA.html).toContain("Maple Street Auto");
    expect(pageA.html).not.toContain("Harbourview Dental");
    expect(pageA.html).not.toContain("Fades on Queen"); // a config host: the operator's
    expect(pageA.html).toContain(`bookings/${mapleBooking}/approve`);
    expect(pageA.html).not.toContain(dentalBooking);
    expect(pageA.html).not.toContain('href="/console/owners"');

    const pageB = await get("/", b);
    expect(pageB.html).toContain("Harbourview Dental");
    expect(pageB.html).not.toContain("Maple Street Auto");
    expect(pageB.html).toContain(`bookings/${dentalBooking}/decline`);
    expect(pageB.html).not.toContain(mapleBooking);

    const operator = await get("/", await operatorCookie());
    for (const s of [
      "Maple Street Auto",
      "Harbourview Dental",
      "Fades on Queen",
      mapleBooking,
      dentalBooking,
    ])
      expect(operator.html).toContain(s);
  });

  it("A's own CSRF token does not let A answer B's booking: 404, nothing changed", async () => {
    const { csrf } = await get("/", a);
    for (const action of ["approve", "decline"]) {
      const res = await post(
        `/console/hosts/harbourview-dental/bookings/${dentalBooking}/${action}`,
        { csrf },
        { cookie: a },
      );
      expect(res.status).toBe(404);
      expect(await res.text()).not.toContain("Harbourview Dental");
    }
    expect(await statusOf("harbourview-dental", dentalBooking)).toBe("pending_host");
    // A config host no owner owns: the same answer.
    expect(
      (await post("/console/hosts/fades-on-queen/bookings/x/approve", { csrf }, { cookie: a })).status,
    ).toBe(404);

    // A's own booking: answered.
    const own = await post(
      `/console/hosts/maple-street-auto/bookings/${mapleBooking}/approve`,
      { csrf },
      { cookie: a },
    );
    expect(own.status).toBe(303);
    expect(await statusOf("maple-street-auto", mapleBooking)).toBe("confirmed");
    expect((await get("/", a)).html).toMatch(/role="status">Approved: [^<]*Maple Street Auto/);

    // B answers B's.
    const bCsrf = (await get("/", b)).csrf;
    expect(
      (
        await post(
          `/console/hosts/harbourview-dental/bookings/${dentalBooking}/decline`,
          { csrf: bCsrf },
          { cookie: b },
        )
      ).status,
    ).toBe(303);
    expect(await statusOf("harbourview-dental", dentalBooking)).toBe("declined");
  });

  it("the Owners page and its forms are the operator's: 403 for an owner", async () => {
    const { csrf } = await get("/", a);
    expect((await get("/console/owners", a)).status).toBe(403);
    expect(
      (await post("/console/owners", { csrf, email: "mallory@example.com" }, { cookie: a })).status,
    ).toBe(403);
    const bId = await ownerIdOf("bo@harbourview.example");
    expect((await post(`/console/owners/${bId}/disable`, { csrf }, { cookie: a })).status).toBe(403);
    expect((await gw.runtime.console!.accounts.list()).map((x) => x.email)).not.toContain(
      "mallory@example.com",
    );
    // Signed out: back to sign-in.
    const anon = await app.request(url("/console/owners"));
    expect(anon.status).toBe(303);
  });

  it("disabling an owner ends their sessions; enabling lets them sign in again", async () => {
    const operator = await operatorCookie();
    const bId = await ownerIdOf("bo@harbourview.example");
    const owners = await get("/console/owners", operator);
    expect(
      (await post(`/console/owners/${bId}/disable`, { csrf: owners.csrf }, { cookie: operator })).status,
    ).toBe(303);
    expect((await get("/console/owners", operator)).html).toContain("disabled");
    expect((await get("/", b)).html).toContain("Sign in to the operator console");
    expect(
      (await post("/console/sign-in", { email: "bo@harbourview.example", password: PASSWORD_B })).status,
    ).toBe(401);
    const again = await get("/console/owners", operator);
    await post(`/console/owners/${bId}/enable`, { csrf: again.csrf }, { cookie: operator });
    expect(
      (await post("/console/sign-in", { email: "bo@harbourview.example", password: PASSWORD_B })).status,
    ).toBe(303);
  });

  it("consoleViewerOf tells routes outside the console (Connect) who is signed in", async () => {
    const viewerOf = consoleViewerOf(gw.runtime.console!, gw.origin);
    const req = (cookie?: string) =>
      new Request(url("/connect/square/start"), { headers: cookie === undefined ? {} : { cookie } });
    expect(await viewerOf(req(a))).toEqual({
      kind: "owner",
      ownerId: await ownerIdOf("ana@maple.example"),
      email: "ana@maple.example",
    });
    expect(await viewerOf(req(await operatorCookie()))).toEqual({ kind: "operator" });
    expect(await viewerOf(req())).toBeUndefined();
    expect(await viewerOf(req(`${COOKIE}=not-a-session`))).toBeUndefined();
  });

  it("an owner's session expires like the operator's: 30 minutes idle ends it", async () => {
    const res = await post("/console/sign-in", { email: "ana@maple.example", password: PASSWORD_A });
    const cookie = sessionCookie(res);
    gw.clock.advance(29 * 60_000);
    expect((await get("/", cookie)).html).toContain("Signed in as ana@maple.example");
    gw.clock.advance(30 * 60_000 + 1);
    const after = await get("/", cookie);
    expect(after.html).toContain("session has ended");
    expect(after.html).not.toContain("Maple Street Auto");
  });
});
