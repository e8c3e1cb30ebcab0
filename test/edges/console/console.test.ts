/**
 * The operator console in process through app.request(), on the real runtime with
 * the embedded default hosts: harbourview-dental is host_approval, so a booking made over
 * SchCP by the agent SDK waits for the host (§5.3 pending_host) and the console answers it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Hono } from "hono";
import { createHttpApp } from "../../../src/gateway/app/app.js";
import { discover, freeSlots, holdAndBook, newAgent } from "../../e2e/support/agents.js";
import { startGateway, type E2eGateway } from "../../e2e/support/gateway.js";

let gw: E2eGateway;
let app: Hono;
const COOKIE = "gw_session"; // the embedded default's http origin: no __Host- (routes.ts)

beforeAll(async () => {
  // Behind a trusted proxy (TRUST_PROXY): X-Forwarded-For names each test client's network origin.
  gw = await startGateway({ runtime: { workers: false, trustForwardedFor: true } });
  app = createHttpApp(gw.runtime);
});
afterAll(async () => {
  await gw?.close();
});

const url = (path: string) => `${gw.origin}${path}`;

function post(path: string, form: Record<string, string>, headers: Record<string, string> = {}) {
  return app.request(url(path), {
    method: "POST",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      origin: gw.origin,
      "sec-fetch-site": "same-origin",
      ...headers,
    },
    body: new URLSearchParams(form).toString(),
  });
}

function sessionCookie(res: Response): string {
  const set = res.headers.get("set-cookie") ?? "";
  const m = new RegExp(`${COOKIE}=([^;]*)`).exec(set);
  if (m === null) throw new Error(`no session cookie in ${set}`);
  return `${COOKIE}=${m[1]}`;
}

async function signIn(ip = "198.51.100.1"): Promise<string> {
  const res = await post(
    "/console/sign-in",
    { credential: gw.runtime.operatorToken },
    { "x-forwarded-for": ip },
  );
  expect(res.status).toBe(303);
  return sessionCookie(res);
}

async function home(cookie: string): Promise<{ status: number; html: string; csrf: string }> {
  const res = await app.request(url("/"), { headers: { cookie } });
  const html = await res.text();
  return { status: res.status, html, csrf: /name="csrf" value="([^"]+)"/.exec(html)?.[1] ?? "" };
}

async function pendingBooking(fromDays: number): Promise<string> {
  const agent = newAgent(gw);
  const dental = await discover(agent, gw, "harbourview-dental");
  const [slot] = await freeSlots(agent, gw, dental, "cleaning", { fromDays });
  const booked = await holdAndBook(agent, dental, "cleaning", slot!.start);
  expect(booked.booking.booking.status).toBe("pending_host");
  return booked.booking.booking.booking_id;
}

async function statusOf(bookingId: string): Promise<string | undefined> {
  const listed = await gw.runtime.api.listBookings("harbourview-dental");
  if (!listed.ok) throw new Error(listed.error.message);
  return listed.value.find((b) => b.bookingId === bookingId)?.status;
}

describe("sign-in and sign-out", () => {
  it("GET / without a session is the sign-in page, under a strict CSP with no script", async () => {
    const res = await app.request(url("/"));
    expect(res.status).toBe(200);
    const csp = res.headers.get("content-security-policy") ?? "";
    expect(csp).toMatch(
      /default-src 'none'; style-src 'sha256-[A-Za-z0-9+/]+=*'; form-action 'self'; frame-ancestors 'none'/,
    );
    const html = await res.text();
    expect(html).toContain('<label for="credential">');
    expect(html).toContain('action="/console/sign-in"');
    expect(html).not.toMatch(/<script/i);
  });

  it("the credential opens a session (HttpOnly, SameSite=Strict, Path=/); a wrong one does not", async () => {
    const wrong = await post(
      "/console/sign-in",
      { credential: "not-the-credential-at-all" },
      { "x-forwarded-for": "198.51.100.2" },
    );
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get("set-cookie")).toBeNull();
    expect(await wrong.text()).toContain("not the operator credential");

    const res = await post(
      "/console/sign-in",
      { credential: gw.runtime.operatorToken },
      { "x-forwarded-for": "198.51.100.2" },
    );
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/");
    const set = res.headers.get("set-cookie") ?? "";
    expect(set).toMatch(/^gw_session=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Strict; Max-Age=43200$/);
    const page = await home(sessionCookie(res));
    expect(page.html).toContain("<h1>Operate</h1>");
    expect(page.csrf).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it("sign-out ends the session server-side: the old cookie no longer opens the console", async () => {
    const cookie = await signIn();
    const { csrf } = await home(cookie);
    const out = await post("/console/sign-out", { csrf }, { cookie });
    expect(out.status).toBe(303);
    expect(out.headers.get("set-cookie")).toContain("Max-Age=0");
    const after = await home(cookie);
    expect(after.html).toContain("Sign in to the operator console");
    expect(after.html).toContain("session has ended");
  });
});

describe("session expiry (gateway clock)", () => {
  it("ends after 30 minutes idle; use keeps it alive", async () => {
    const cookie = await signIn();
    gw.clock.advance(29 * 60_000);
    expect((await home(cookie)).html).toContain("<h1>Operate</h1>");
    gw.clock.advance(29 * 60_000);
    expect((await home(cookie)).html).toContain("<h1>Operate</h1>");
    gw.clock.advance(30 * 60_000);
    expect((await home(cookie)).html).toContain("Sign in to the operator console");
  });

  it("ends 12 hours after sign-in however busy", async () => {
    const cookie = await signIn();
    for (let i = 0; i < 28; i++) {
      gw.clock.advance(25 * 60_000); // 28 × 25 min = 11 h 40 min
      expect((await home(cookie)).html, `step ${i}`).toContain("<h1>Operate</h1>");
    }
    gw.clock.advance(25 * 60_000);
    expect((await home(cookie)).html).toContain("Sign in to the operator console");
  });
});

describe("CSRF", () => {
  it("refuses a POST without the token, with a wrong one, or from another site; nothing changes", async () => {
    const id = await pendingBooking(3);
    const cookie = await signIn();
    const { csrf } = await home(cookie);
    const path = `/console/hosts/harbourview-dental/bookings/${id}/approve`;
    expect((await post(path, {}, { cookie })).status).toBe(403);
    expect(
      (
        await post(
          path,
          { csrf: `${csrf.slice(0, -1)}A` === csrf ? "x" : `${csrf.slice(0, -1)}A` },
          { cookie },
        )
      ).status,
    ).toBe(403);
    expect((await post(path, { csrf }, { cookie, origin: "https://evil.example" })).status).toBe(403);
    expect((await post(path, { csrf }, { cookie, "sec-fetch-site": "cross-site" })).status).toBe(403);
    // Another session's token is not this session's.
    const other = await home(await signIn());
    expect((await post(path, { csrf: other.csrf }, { cookie })).status).toBe(403);
    // No session at all.
    expect((await post(path, { csrf })).status).toBe(403);
    // A GET never acts.
    expect((await app.request(url(path), { headers: { cookie } })).status).toBe(404);
    expect(await statusOf(id)).toBe("pending_host");
    // Sign-in from another site is refused too (login CSRF).
    const cross = await post(
      "/console/sign-in",
      { credential: gw.runtime.operatorToken },
      { origin: "https://evil.example" },
    );
    expect(cross.status).toBe(403);
  });
});

describe("failed sign-ins are limited per network origin", () => {
  it("after 5 wrong credentials the origin is refused with 429 — even the right credential — and others are not", async () => {
    const ip = "203.0.113.9";
    for (let i = 0; i < 5; i++)
      expect(
        (await post("/console/sign-in", { credential: `wrong-${i}-xxxxxxxxxxxx` }, { "x-forwarded-for": ip }))
          .status,
      ).toBe(401);
    const locked = await post(
      "/console/sign-in",
      { credential: gw.runtime.operatorToken },
      { "x-forwarded-for": ip },
    );
    expect(locked.status).toBe(429);
    expect(Number(locked.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(locked.headers.get("set-cookie")).toBeNull();
    await signIn("203.0.113.10");
    gw.clock.advance(15 * 60_000);
    await signIn(ip);
  });
});

describe("Operate: approve and decline through the page", () => {
  it("lists the pending booking with both forms, approves one and declines another through the OperatorApi", async () => {
    const a = await pendingBooking(5);
    const b = await pendingBooking(6);
    const cookie = await signIn();
    const page = await home(cookie);
    expect(page.html).toContain("Hosts");
    expect(page.html).toContain("Harbourview Dental");
    expect(page.html).toContain(`/console/hosts/harbourview-dental/bookings/${a}/approve`);
    expect(page.html).toContain(`/console/hosts/harbourview-dental/bookings/${b}/decline`);

    const approved = await post(
      `/console/hosts/harbourview-dental/bookings/${a}/approve`,
      { csrf: page.csrf },
      { cookie },
    );
    expect(approved.status).toBe(303);
    expect(await statusOf(a)).toBe("confirmed");
    const after = await home(cookie);
    expect(after.html).toMatch(/role="status">Approved: [^<]*booking [^<]*is now confirmed/);
    expect(after.html).not.toContain(`bookings/${a}/approve`);
    // The flash is shown once.
    expect((await home(cookie)).html).not.toContain('role="status"');

    const declined = await post(
      `/console/hosts/harbourview-dental/bookings/${b}/decline`,
      { csrf: page.csrf },
      { cookie },
    );
    expect(declined.status).toBe(303);
    expect(await statusOf(b)).toBe("declined");
    // Answering again is refused by the core and said so.
    await post(`/console/hosts/harbourview-dental/bookings/${b}/approve`, { csrf: page.csrf }, { cookie });
    expect((await home(cookie)).html).toMatch(
      /class="flash error" role="status">Booking [^<]* could not be approved/,
    );
    expect(await statusOf(b)).toBe("declined");
  });
});
