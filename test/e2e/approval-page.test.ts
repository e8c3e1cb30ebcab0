/**
 * A calendar host (a local calendar directory) booked over SchCP,
 * its approver's link opened in a real headless Chromium (Debian's chromium via
 * playwright-core): the page shows the booking, Approve confirms it — the SchCP booking is
 * confirmed and the calendar event CONFIRMED — and a second use of the link is refused.
 * Screenshots go to test-artifacts/ (git-ignored).
 */
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { launchChromium } from "../support/chromium.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HostConfig } from "../../src/booking/api.js";
import { parseHostsConfig } from "../../src/booking/hosts/parse-config.js";
import { offerSha256 } from "../../src/protocol/schcp/offer/index.js";
import { mandateFor, newKey } from "../gateway/support/agent.js";
import { PUBLIC_ORIGIN, agentFetch, startGateway, type TestGateway } from "../gateway/support/gateway.js";

const ARTIFACTS = join(process.cwd(), "test-artifacts", "approval-page");
const HOST = "ana-studio";
const PATH = `/schcp/v0/${HOST}`;

// Every Wednesday 10:00–11:00 in Toronto: the calendar's own busy time.
const WEEKLY = [
  "BEGIN:VCALENDAR",
  "VERSION:2.0",
  "PRODID:-//test//EN",
  "BEGIN:VEVENT",
  "UID:weekly-team@example",
  "DTSTAMP:20261001T000000Z",
  "DTSTART;TZID=America/Toronto:20261007T100000",
  "DTEND;TZID=America/Toronto:20261007T110000",
  "RRULE:FREQ=WEEKLY;BYDAY=WE",
  "SUMMARY:Team meeting",
  "END:VEVENT",
  "END:VCALENDAR",
  "",
].join("\r\n");

let dir: string;
let calendarDir: string;
let gw: TestGateway;
let browser: Browser;
const agent = newKey();
const principal = newKey();

function hostConfig(): HostConfig[] {
  const parsed = parseHostsConfig({
    hosts: [
      {
        id: HOST,
        name: "Ana's studio",
        kind: "person",
        owner: "urn:schcp:principal:jwk-thumbprint:VQC1VOuKVPYBpq87x1MkJ_ax4se-_xzBCTK19U9uOx0",
        timezone: "America/Toronto",
        connector: { type: "ics-dir", settings: { path: calendarDir } },
        calendar: {
          capacity: "me",
          hours: [1, 2, 3, 4, 5].map((day) => ({ day, open: "09:00", close: "17:00" })),
          services: [{ id: "consult", name: "Consultation", duration: "PT30M" }],
          granularity: "PT30M",
          approver: { email: "ana@example.com" },
        },
      },
    ],
  });
  if (!parsed.ok) throw new Error(parsed.error.message);
  return parsed.value;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "gw-approval-"));
  calendarDir = join(dir, "calendar");
  mkdirSync(calendarDir);
  writeFileSync(join(calendarDir, "weekly-team.ics"), WEEKLY);
  mkdirSync(ARTIFACTS, { recursive: true });
  gw = await startGateway({ dataDir: dir, hosts: hostConfig() });
  browser = await launchChromium();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await gw?.close();
  await rm(dir, { recursive: true, force: true });
});

async function linkFromMessages(): Promise<string> {
  await gw.runtime.messenger.idle();
  const lines = readFileSync(join(dir, "host-messages.jsonl"), "utf8").trim().split("\n");
  const text = (JSON.parse(lines.at(-1) ?? "{}") as { text?: string }).text ?? "";
  const link = /https?:\/\/\S+\/approve\/\S+/.exec(text)?.[0];
  if (link === undefined) throw new Error(`no approval link in ${text}`);
  // The link names the public origin; the browser reaches the gateway on loopback.
  return link.replace(PUBLIC_ORIGIN, gw.url);
}

describe("a calendar host's approval link in a real browser", () => {
  it("offers working hours minus the calendar's busy time, books TENTATIVE, and the host approves from the link", async () => {
    // §10: before its calendar was read, a calendar host offers nothing and holds nothing.
    const early = await mandateFor({ principal, agent, aud: HOST, nowSec: gw.clock.sec });
    const unread = await agentFetch(gw, agent, {
      method: "POST",
      path: `${PATH}/holds`,
      mandate: early,
      body: { service_id: "consult", start: "2026-10-14T09:00:00-04:00", idempotency_key: "hold-0" },
    });
    expect(unread.status, JSON.stringify(unread.json)).toBe(409);
    expect(unread.json).toMatchObject({
      error: { code: "SLOT_UNAVAILABLE", reason: "availability_unknown" },
    });

    expect(await gw.runtime.syncCalendarNow(HOST)).toBe(true);
    const window = { start: "2026-10-14T09:00:00-04:00", end: "2026-10-14T12:00:00-04:00" };
    const avail = await agentFetch(gw, agent, {
      method: "POST",
      path: `${PATH}/availability`,
      body: { service_id: "consult", window },
    });
    expect(avail.status, JSON.stringify(avail.json)).toBe(200);
    const starts = (avail.json as { slots: Array<{ start: string }> }).slots.map((s) => s.start);
    // Wednesday 10:00–11:00 is the team meeting (a recurring event, every occurrence busy).
    expect(starts).toEqual([
      "2026-10-14T09:00:00-04:00",
      "2026-10-14T09:30:00-04:00",
      "2026-10-14T11:00:00-04:00",
      "2026-10-14T11:30:00-04:00",
    ]);

    const m = await mandateFor({ principal, agent, aud: HOST, nowSec: gw.clock.sec });
    const hold = await agentFetch(gw, agent, {
      method: "POST",
      path: `${PATH}/holds`,
      mandate: m,
      body: { service_id: "consult", start: starts[2], idempotency_key: "hold-1" },
    });
    expect(hold.status, JSON.stringify(hold.json)).toBe(201);
    const h = hold.json as { hold_id: string; offer: string };
    const confirm = await agentFetch(gw, agent, {
      method: "POST",
      path: `${PATH}/holds/${h.hold_id}/confirm`,
      mandate: m,
      body: { idempotency_key: "confirm-1", offer_sha256: offerSha256(h.offer) },
    });
    expect(confirm.status, JSON.stringify(confirm.json)).toBe(202);
    const bookingId = (confirm.json as { booking: { booking_id: string } }).booking.booking_id;
    const own = readdirSync(calendarDir).filter((f) => f.startsWith("bg"));
    expect(own).toHaveLength(1);
    const eventFile = join(calendarDir, own[0] ?? "");
    expect(readFileSync(eventFile, "utf8")).toContain("STATUS:TENTATIVE");

    const link = await linkFromMessages();
    const page = await browser.newPage();
    await page.goto(link);
    await expect.poll(() => page.textContent("h1")).toBe("A booking is waiting for you");
    expect(await page.textContent("body")).toContain("Consultation");
    await page.screenshot({ path: join(ARTIFACTS, "1-question.png") });
    await page.click("button.approve");
    await page.waitForSelector("text=Booking approved");
    await page.screenshot({ path: join(ARTIFACTS, "2-approved.png") });

    const read = await agentFetch(gw, agent, {
      method: "GET",
      path: `${PATH}/bookings/${bookingId}`,
      mandate: m,
    });
    expect(read.json).toMatchObject({ booking: { booking_id: bookingId, status: "confirmed" } });
    expect(readFileSync(eventFile, "utf8")).toContain("STATUS:CONFIRMED");

    // A second use of the link is refused; opening it again says it was answered.
    const again = await page.request.post(link, { form: { action: "decline" } });
    expect(again.status()).toBe(409);
    expect(await again.text()).toContain("already used");
    await page.goto(link);
    expect(await page.textContent("h1")).toBe("This booking was already answered");
    await page.screenshot({ path: join(ARTIFACTS, "3-second-use.png") });
    await page.close();

    // The booking is the host's own event now: the next sync does not count it twice.
    await gw.runtime.syncCalendarNow(HOST);
    const after = await agentFetch(gw, agent, {
      method: "POST",
      path: `${PATH}/availability`,
      body: { service_id: "consult", window },
    });
    expect((after.json as { slots: Array<{ start: string }> }).slots.map((s) => s.start)).toEqual([
      "2026-10-14T09:00:00-04:00",
      "2026-10-14T09:30:00-04:00",
      "2026-10-14T11:30:00-04:00",
    ]);
  });

  it("a link scanner's GET changes nothing; a forged link is refused", async () => {
    const forged = await fetch(`${gw.url}/approve/${"A".repeat(20)}.${"B".repeat(43)}`);
    expect(forged.status).toBe(404);
    expect(forged.headers.get("content-security-policy")).toContain("default-src 'none'");
    expect(await forged.text()).not.toContain("Consultation");
  });
});
