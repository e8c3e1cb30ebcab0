/**
 * Operate: the operator console in a real headless Chromium (Debian's
 * chromium via playwright-core, as approval-page.test.ts): sign in with the operator
 * credential, see a booking waiting at a host_approval host, approve it, see it confirmed —
 * and the booking is confirmed in the core. Screenshots go to test-artifacts/ (git-ignored).
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { launchChromium } from "../support/chromium.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { discover, freeSlots, holdAndBook, newAgent } from "./support/agents.js";
import { startGateway, type E2eGateway } from "./support/gateway.js";

const ARTIFACTS = join(process.cwd(), "test-artifacts", "console");

let gw: E2eGateway;
let browser: Browser;

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  gw = await startGateway({ runtime: { workers: false } });
  browser = await launchChromium();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await gw?.close();
});

describe("the operator console in a real browser", () => {
  it("signs in, sees a pending booking, approves it and sees it confirmed", { timeout: 60_000 }, async () => {
    const agent = newAgent(gw);
    const dental = await discover(agent, gw, "harbourview-dental");
    const [slot] = await freeSlots(agent, gw, dental, "cleaning", { fromDays: 3 });
    const booked = await holdAndBook(agent, dental, "cleaning", slot!.start);
    const id = booked.booking.booking.booking_id;
    expect(booked.booking.booking.status).toBe("pending_host");

    const page = await browser.newPage();
    const cspErrors: string[] = [];
    page.on("console", (m) => {
      if (/Content Security Policy/i.test(m.text())) cspErrors.push(m.text());
    });
    await page.goto(`${gw.origin}/`);
    expect(await page.textContent("h1")).toBe("Sign in to the operator console");
    await page.screenshot({ path: join(ARTIFACTS, "1-sign-in.png"), fullPage: true });

    // A wrong credential is refused on the page.
    await page.getByLabel("Operator credential").fill("not-the-operator-credential");
    await page.click("button[type=submit]");
    await page.waitForSelector("text=not the operator credential", { timeout: 10_000 });

    await page.getByLabel("Operator credential").fill(gw.runtime.operatorToken);
    await page.click("button[type=submit]");
    await expect.poll(() => page.textContent("h1")).toBe("Operate");
    const cookies = await page.context().cookies();
    expect(cookies.find((c) => c.name === "gw_session")).toMatchObject({
      httpOnly: true,
      sameSite: "Strict",
    });

    const row = page.locator("tr", { hasText: id });
    await expect.poll(() => row.count()).toBeGreaterThan(0);
    expect(await page.textContent("#pending-h")).toBe("Waiting for approval");
    expect(await page.textContent("main")).toContain("Harbourview Dental");
    await page.screenshot({ path: join(ARTIFACTS, "2-operate-pending.png"), fullPage: true });

    await page.locator(`form[action$="/bookings/${id}/approve"] button`).click();
    await page.waitForSelector("p.flash[role=status]");
    expect(await page.textContent("p.flash")).toMatch(/Approved: .* is now confirmed\./);
    // No longer waiting; listed among upcoming bookings as confirmed.
    expect(await page.locator(`form[action$="/bookings/${id}/approve"]`).count()).toBe(0);
    const upcoming = page.locator("section[aria-labelledby=upcoming-h] tr", { hasText: id });
    expect(await upcoming.textContent()).toContain("confirmed");
    await page.screenshot({ path: join(ARTIFACTS, "3-operate-approved.png"), fullPage: true });

    const listed = await gw.runtime.api.listBookings("harbourview-dental");
    expect(listed.ok && listed.value.find((b) => b.bookingId === id)?.status).toBe("confirmed");

    // Signing out ends the session; the console asks for the credential again.
    await page.click("nav button[type=submit]");
    await expect.poll(() => page.textContent("h1")).toBe("Sign in to the operator console");
    // The page's own stylesheet is allowed by its hash: the browser reported no CSP violation.
    expect(cspErrors).toEqual([]);
    await page.close();
  });
});
