/**
 * Access control, in a real headless Chromium against the real
 * gateway on loopback: the operator invites two business owners on the Owners page; each
 * opens their link, chooses a password, signs out and signs in again through the sign-in
 * page; each sees only their own host and its pending booking. Owner A, holding a valid page
 * of their own (and so a valid CSRF token), re-points their own Approve form at owner B's
 * booking and submits it: refused as an unknown host, and B's booking is still waiting.
 *
 * Ownership: Maple Street Auto (made host_approval here) is A's and Harbourview Dental B's,
 * through managed-host records in a store double (test/support/managed-hosts-double.ts)
 * attached to the runtime's HTTP app; both hosts are served from the config. Screenshots go
 * to test-artifacts/console-owners/ (git-ignored).
 */
import { mkdirSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { serve, type ServerType } from "@hono/node-server";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHttpApp } from "../../src/gateway/app/app.js";
import { launchChromium } from "../support/chromium.js";
import { managedHostsDouble, MemoryManagedHostStore, ownedHost } from "../support/managed-hosts-double.js";
import { discover, freeSlots, holdAndBook, newAgent } from "./support/agents.js";
import { defaultConfig, startGateway, type E2eGateway } from "./support/gateway.js";

const ARTIFACTS = join(process.cwd(), "test-artifacts", "console-owners");
const records = new MemoryManagedHostStore();

let gw: E2eGateway;
let browser: Browser;
let server: ServerType;
/** The console of the same runtime, with the managed-hosts double attached. */
let origin: string;

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  const config = defaultConfig();
  config.hosts.find((h) => h.id === "maple-street-auto")!.policies = {
    confirmation: "host_approval",
    closed_mandate: "never",
    retention: "P365D",
  };
  gw = await startGateway({ config, runtime: { workers: false } });
  // Listening first: the console's public origin (invitation links) names this port.
  const route: { app?: { fetch: (r: Request, env: unknown) => Response | Promise<Response> } } = {};
  server = serve({
    fetch: (r: Request, env: unknown) =>
      route.app?.fetch(r, env) ?? new Response("starting", { status: 503 }),
    port: 0,
    hostname: "127.0.0.1",
  });
  await new Promise<void>((resolve) =>
    server.listening ? resolve() : server.once("listening", () => resolve()),
  );
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  route.app = createHttpApp({
    ...gw.runtime,
    publicOrigin: origin,
    managedHosts: managedHostsDouble(records),
  });
  browser = await launchChromium();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await new Promise<void>((resolve) => {
    if (server === undefined) return resolve();
    server.close(() => resolve());
    (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
  });
  await gw?.close();
});

async function pending(hostId: string, serviceId: string): Promise<string> {
  const agent = newAgent(gw);
  const host = await discover(agent, gw, hostId);
  const [slot] = await freeSlots(agent, gw, host, serviceId, { fromDays: 4 });
  const booked = await holdAndBook(agent, host, serviceId, slot!.start);
  expect(booked.booking.booking.status).toBe("pending_host");
  return booked.booking.booking.booking_id;
}

async function statusOf(hostId: string, bookingId: string): Promise<string | undefined> {
  const listed = await gw.runtime.api.listBookings(hostId);
  if (!listed.ok) throw new Error(listed.error.message);
  return listed.value.find((b) => b.bookingId === bookingId)?.status;
}

async function invite(page: Page, email: string): Promise<string> {
  await page.getByRole("link", { name: "Owners" }).click();
  await expect.poll(() => page.textContent("h1")).toBe("Owners");
  await page.getByLabel("Owner's email").fill(email);
  await page.getByRole("button", { name: "Create invitation link" }).click();
  const link = (await page.locator("#invitation-link").textContent({ timeout: 10_000 })) ?? "";
  expect(link.startsWith(`${origin}/console/invite/`)).toBe(true);
  return link;
}

/** A fresh browser (own cookies) opens the link, chooses a password, signs out and in again. */
async function ownerSignsUp(link: string, email: string, password: string, shot: string): Promise<Page> {
  const context: BrowserContext = await browser.newContext();
  const page = await context.newPage();
  await page.goto(link);
  expect(await page.textContent("h1")).toBe(`Welcome, ${email}`);
  await page.getByLabel("New password").fill(password);
  await page.getByLabel("Confirm the password").fill(password);
  await page.screenshot({ path: join(ARTIFACTS, `${shot}-1-invitation.png`), fullPage: true });
  await page.getByRole("button", { name: "Set password and sign in" }).click();
  await expect.poll(() => page.textContent("h1")).toBe("Operate");
  expect(await page.textContent("header")).toContain(`Signed in as ${email}`);

  // The link works once.
  const again = await context.newPage();
  const res = await again.goto(link);
  expect(res?.status()).toBe(410);
  await again.close();

  await page.getByRole("button", { name: "Sign out" }).click();
  await expect.poll(() => page.textContent("h1")).toBe("Sign in to the operator console");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password", { exact: true }).fill("not my password at all");
  await page.getByRole("button", { name: "Sign in as owner" }).click();
  await page.waitForSelector("text=do not match an owner account", { timeout: 10_000 });
  await page.getByLabel("Email").fill(email.toUpperCase());
  await page.getByLabel("Password", { exact: true }).fill(password);
  await page.getByRole("button", { name: "Sign in as owner" }).click();
  await expect.poll(() => page.textContent("h1")).toBe("Operate");
  return page;
}

describe("business owners in a real browser", () => {
  it(
    "each owner sees only their host; A cannot answer B's booking even with A's own form",
    { timeout: 120_000 },
    async () => {
      const operator = await (await browser.newContext()).newPage();
      await operator.goto(`${origin}/`);
      await operator.getByLabel("Operator credential").fill(gw.runtime.operatorToken);
      await operator.getByRole("button", { name: "Sign in", exact: true }).click();
      await expect.poll(() => operator.textContent("h1")).toBe("Operate");
      const linkA = await invite(operator, "ana@maple.example");
      const linkB = await invite(operator, "bo@harbourview.example");
      await operator.screenshot({ path: join(ARTIFACTS, "0-owners.png"), fullPage: true });

      const accounts = await gw.runtime.console!.accounts.list();
      const idOf = (email: string) => accounts.find((x) => x.email === email)!.ownerId;
      await records.put(ownedHost("maple-street-auto", idOf("ana@maple.example")));
      await records.put(ownedHost("harbourview-dental", idOf("bo@harbourview.example")));

      const mapleBooking = await pending("maple-street-auto", "oil-change");
      const dentalBooking = await pending("harbourview-dental", "cleaning");

      const a = await ownerSignsUp(linkA, "ana@maple.example", "ana's long passphrase", "a");
      const b = await ownerSignsUp(linkB, "bo@harbourview.example", "bo's other passphrase", "b");

      const mainA = (await a.textContent("main")) ?? "";
      expect(mainA).toContain("Maple Street Auto");
      expect(mainA).toContain(mapleBooking);
      expect(mainA).not.toContain("Harbourview Dental");
      expect(mainA).not.toContain(dentalBooking);
      expect(mainA).not.toContain("Fades on Queen");
      expect(await a.getByRole("link", { name: "Owners" }).count()).toBe(0);
      await a.screenshot({ path: join(ARTIFACTS, "a-2-operate.png"), fullPage: true });

      const mainB = (await b.textContent("main")) ?? "";
      expect(mainB).toContain("Harbourview Dental");
      expect(mainB).toContain(dentalBooking);
      expect(mainB).not.toContain("Maple Street Auto");
      expect(mainB).not.toContain(mapleBooking);
      await b.screenshot({ path: join(ARTIFACTS, "b-2-operate.png"), fullPage: true });

      // A re-points A's own Approve form (A's session, A's valid CSRF token) at B's booking.
      const own = a.locator(`form[action$="/bookings/${mapleBooking}/approve"]`);
      expect(await own.count()).toBe(1);
      // A handle, not the locator: the locator names the action being changed.
      const button = await own.locator("button").elementHandle();
      await own.evaluate((form, path) => {
        // No DOM lib in this project's types: the one call used, named.
        (form as unknown as { setAttribute(name: string, value: string): void }).setAttribute("action", path);
      }, `/console/hosts/harbourview-dental/bookings/${dentalBooking}/approve`);
      const [refused] = await Promise.all([
        a.waitForResponse((r) => r.request().method() === "POST"),
        button.click(),
      ]);
      expect(refused.url()).toBe(
        `${origin}/console/hosts/harbourview-dental/bookings/${dentalBooking}/approve`,
      );
      expect(refused.status()).toBe(404);
      await expect.poll(() => a.textContent("h1")).toBe("Not found");
      await a.screenshot({ path: join(ARTIFACTS, "a-3-refused.png"), fullPage: true });
      expect(await statusOf("harbourview-dental", dentalBooking)).toBe("pending_host");
      expect(await statusOf("maple-street-auto", mapleBooking)).toBe("pending_host");

      // The Owners page is the operator's.
      const owners = await a.goto(`${origin}/console/owners`);
      expect(owners?.status()).toBe(403);

      // Each answers their own.
      await a.goto(`${origin}/`);
      await a.locator(`form[action$="/bookings/${mapleBooking}/approve"] button`).click();
      await a.waitForSelector("p.flash[role=status]");
      expect(await a.textContent("p.flash")).toMatch(/Approved: .*Maple Street Auto.* is now confirmed\./);
      await b.locator(`form[action$="/bookings/${dentalBooking}/approve"] button`).click();
      await b.waitForSelector("p.flash[role=status]");
      expect(await statusOf("maple-street-auto", mapleBooking)).toBe("confirmed");
      expect(await statusOf("harbourview-dental", dentalBooking)).toBe("confirmed");

      // The operator still sees every host.
      await operator.goto(`${origin}/`);
      const all = (await operator.textContent("main")) ?? "";
      for (const name of ["Maple Street Auto", "Harbourview Dental", "Fades on Queen"])
        expect(all).toContain(name);
    },
  );
});
