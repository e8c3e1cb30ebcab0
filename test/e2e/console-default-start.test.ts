/**
 * A new owner on a gateway started the default way: `booking-gateway serve` (in process,
 * runCli) with the embedded default and only documented settings (GATEWAY_DATA_DIR, PORT=0,
 * UPSTREAM_ALLOW_PRIVATE=1 for the CalDAV server on loopback; no TOKEN_KEYS), driven in a real
 * headless Chromium against a real CalDAV server (xandikos, behind a proxy that checks the
 * password).
 *
 * 1. The start keeps its own token vault key in the data dir (0600) and says so.
 * 2. The operator invites an owner; the owner's empty home page shows the way forward.
 * 3. "Add a business" offers CalDAV (the only source here, already chosen); a wrong password is
 *    refused, the right one lists the account's one calendar, which the setup form has ticked;
 *    the business's zone (America/Toronto) gives CAD and a +1 phone example; "how many at once"
 *    is hidden for "Just me". Saved, the business offers time to a SchCP agent, around the busy
 *    time its calendar shows.
 * 4. Its week shows that busy time and the booking waiting for approval, in the zone named.
 * 5. A second business left half-added is deleted from the home page.
 *
 * Every console page is captured at 390 and 1280 px (test-artifacts/console/<page>-<width>.png),
 * checked not to scroll sideways and to carry no CSP refusal, and run through axe-core
 * (node_modules/axe-core/axe.min.js, injected into the page): no serious or critical violation,
 * results in test-artifacts/console/axe-results.json.
 */
import { mkdtempSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli, type RunningServer } from "../../src/gateway/cli/cli.js";
import {
  addDays,
  formatInstant,
  instantToWallClock,
  isoWeekday,
  wallClockToInstant,
  type LocalDate,
} from "../../src/protocol/time/index.js";
import type { DiscoveredHost } from "../../src/agent/index.js";
import { startBasicAuthProxy, type BasicAuthProxy } from "../support/basic-auth-proxy.js";
import { launchChromium } from "../support/chromium.js";
import { repoRoot } from "../support/fixtures.js";
import { startXandikos, XANDIKOS_START_TIMEOUT_MS, type Xandikos } from "../support/xandikos.js";
import { holdAndBook, must, newAgent, type E2eAgent } from "./support/agents.js";
import { TestClock } from "./support/gateway.js";

const ARTIFACTS = join(repoRoot, "test-artifacts", "console");
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");
const WIDTHS = [390, 1280] as const;
/** Generous: two shared cores run Chromium, the gateway and xandikos. */
const NAV = { timeout: 30_000 };

const ZONE = "America/Toronto";
const HOST_ID = "maple-physio";
const NAME = "Maple Physio";
const CALDAV_USER = "ruth@maple-physio.example";
const CALDAV_PASSWORD = "app-pass-Maple-2026";
const OWNER_EMAIL = "ruth@maple-physio.example";
const OWNER_PASSWORD = "ruth's long passphrase";

let dataDir: string;
let xandikos: Xandikos;
let proxy: BasicAuthProxy;
let server: RunningServer;
let banner = "";
let browser: Browser;
let operator: Page;
let owner: Page;
const clock = new TestClock();

interface AxeViolation {
  readonly id: string;
  readonly impact: string | null;
  readonly help: string;
  readonly nodes: number;
  readonly targets: readonly string[];
}
/** axe-core's run over the whole page, its violations summed up (the page has no DOM types here). */
const AXE_RUN =
  'axe.run(document, { resultTypes: ["violations"] }).then((r) => r.violations.map((v) => ' +
  "({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.length, " +
  'targets: v.nodes.slice(0, 5).map((n) => n.target.join(" ")) })))';
/** The elements whose right edge is past the window's (none when the page does not scroll sideways). */
const WIDER_THAN_WINDOW =
  "[...document.querySelectorAll('body *')].filter((el) => el.getBoundingClientRect().right > " +
  "document.documentElement.clientWidth + 0.5).slice(0, 8).map((el) => el.tagName.toLowerCase() + " +
  "(el.id ? '#' + el.id : '') + (el.className ? '.' + String(el.className).split(' ').join('.') : '') + " +
  "' ' + Math.round(el.getBoundingClientRect().right))";
const axeResults: Array<{ page: string; width: number; url: string; violations: AxeViolation[] }> = [];
const pagesCaptured: string[] = [];
/** CSP refusals a page reported (a stylesheet whose hash the policy does not list, a script). */
const cspErrors: string[] = [];

/** The local date `days` after today in the business's zone, and an instant on it. */
const today = (): LocalDate => instantToWallClock(clock.now(), ZONE);
const at = (d: LocalDate, hour: number, minute = 0): number => {
  const t = wallClockToInstant({ ...d, hour, minute, second: 0, millisecond: 0 }, ZONE, "compatible");
  if (!t.ok) throw new Error("no such local time");
  return t.value;
};
/** Next week's Monday in the business's zone: its Tuesday has the calendar's busy time. */
const nextMonday = (): LocalDate => addDays(today(), 8 - isoWeekday(today()));
const iso = (d: LocalDate) =>
  `${d.year}-${String(d.month).padStart(2, "0")}-${String(d.day).padStart(2, "0")}`;
const icsTime = (t: number) =>
  new Date(t)
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d{3}/, "");

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  dataDir = mkdtempSync(join(tmpdir(), "gw-default-start-"));
  xandikos = await startXandikos();
  proxy = await startBasicAuthProxy(new URL(xandikos.serverUrl), CALDAV_USER, CALDAV_PASSWORD);
  // Busy in the owner's own calendar next Tuesday 10:00-11:30, put there by another client.
  const tuesday = addDays(nextMonday(), 1);
  const busy = await fetch(new URL(`${xandikos.defaultCalendar}dentist.ics`, xandikos.serverUrl), {
    method: "PUT",
    headers: { "content-type": "text/calendar; charset=utf-8" },
    body:
      "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\nBEGIN:VEVENT\r\nUID:dentist-1@test\r\n" +
      `DTSTAMP:${icsTime(clock.now())}\r\nDTSTART:${icsTime(at(tuesday, 10))}\r\nDTEND:${icsTime(at(tuesday, 11, 30))}\r\n` +
      "SUMMARY:Dentist\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n",
  });
  await busy.arrayBuffer();
  expect([201, 204]).toContain(busy.status);

  const out: string[] = [];
  const started = await runCli(["serve"], {
    // The documented settings only: no TOKEN_KEYS, no config file.
    env: { GATEWAY_DATA_DIR: join(dataDir, "data"), PORT: "0", UPSTREAM_ALLOW_PRIVATE: "1" },
    out: (l) => out.push(l),
    err: () => undefined,
    cwd: dataDir,
  });
  banner = out.join("\n");
  if (typeof started !== "object" || !("publicOrigin" in started))
    throw new Error(`serve did not start (${typeof started === "number" ? started : "mcp"}):\n${banner}`);
  server = started;
  browser = await launchChromium();
}, 120_000 + XANDIKOS_START_TIMEOUT_MS);

afterAll(async () => {
  writeFileSync(
    join(ARTIFACTS, "axe-results.json"),
    `${JSON.stringify({ pages: pagesCaptured, widths: WIDTHS, results: axeResults }, null, 2)}\n`,
  );
  await browser?.close();
  await server?.close();
  await proxy?.close();
  await xandikos?.stop();
  if (dataDir !== undefined) rmSync(dataDir, { recursive: true, force: true });
});

async function newPage(): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  context.setDefaultTimeout(NAV.timeout);
  context.setDefaultNavigationTimeout(NAV.timeout);
  const page = await context.newPage();
  page.on("console", (m) => {
    if (m.type() === "error" && /Content Security Policy/i.test(m.text()))
      cspErrors.push(`${page.url()}: ${m.text()}`);
  });
  return page;
}

const h1 = (page: Page) => page.locator("h1").textContent();

/**
 * The page as it stands, at each width: no sideways scroll, a screenshot, and axe-core's
 * violations (none serious or critical). Back at 1280 px afterwards.
 */
async function capture(page: Page, name: string): Promise<void> {
  pagesCaptured.push(name);
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: 900 });
    await page.screenshot({ path: join(ARTIFACTS, `${name}-${width}.png`), fullPage: true });
    // Nothing reaches past the window's right edge (the failure names what does).
    const sideways = await page.evaluate<string[]>(WIDER_THAN_WINDOW);
    expect(sideways, `${name} scrolls sideways at ${width} px`).toEqual([]);
    // The shared stylesheet applied (its hash is in the CSP): main is bounded and centred.
    expect(await page.evaluate<string>('getComputedStyle(document.querySelector("main")).maxWidth')).not.toBe(
      "none",
    );
    // Evaluated through the browser's DevTools channel, which the pages' CSP does not govern.
    await page.evaluate(AXE_SOURCE);
    const violations = await page.evaluate<AxeViolation[]>(AXE_RUN);
    axeResults.push({ page: name, width, url: page.url(), violations });
    const serious = violations.filter((v) => v.impact === "serious" || v.impact === "critical");
    expect(serious, `${name} at ${width} px`).toEqual([]);
  }
  await page.setViewportSize({ width: 1280, height: 900 });
}

describe("a default start: an owner adds a CalDAV business end to end", () => {
  it("serve keeps a token vault key of its own in the data dir (0600) and says so", () => {
    const path = join(dataDir, "data", "token-keys");
    expect(banner).toContain(`booking-gateway: token vault key: generated now, kept in ${path}`);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readFileSync(path, "utf8")).toMatch(/^local:[A-Za-z0-9+/]{43}=\n$/);
  });

  it("the operator signs in and invites an owner", { timeout: 90_000 }, async () => {
    operator = await newPage();
    await operator.goto(`${server.publicOrigin}/`);
    await capture(operator, "sign-in");
    await operator.getByLabel("Operator credential").fill("not the credential");
    await operator.getByRole("button", { name: "Sign in", exact: true }).click();
    await operator.waitForSelector("text=That is not the operator credential.", NAV);
    await capture(operator, "sign-in-refused");
    await operator.getByLabel("Operator credential").fill(server.runtime.operatorToken);
    await operator.getByRole("button", { name: "Sign in", exact: true }).click();
    await expect.poll(() => h1(operator), NAV).toBe("Operate");
    await capture(operator, "operator-home");

    await operator.getByRole("link", { name: "Owners" }).click();
    await expect.poll(() => h1(operator), NAV).toBe("Owners");
    await capture(operator, "owners");
    await operator.getByLabel("Owner's email").fill(OWNER_EMAIL);
    await operator.getByRole("button", { name: "Create invitation link" }).click();
    const link = (await operator.locator("#invitation-link").textContent()) ?? "";
    expect(link.startsWith(`${server.publicOrigin}/console/invite/`)).toBe(true);
    await capture(operator, "owners-invited");

    owner = await newPage();
    await owner.goto(link);
    expect(await h1(owner)).toBe(`Welcome, ${OWNER_EMAIL}`);
    await capture(owner, "invitation");
    await owner.getByLabel("New password").fill(OWNER_PASSWORD);
    await owner.getByLabel("Confirm the password").fill(OWNER_PASSWORD);
    await owner.getByRole("button", { name: "Set password and sign in" }).click();
    await expect.poll(() => h1(owner), NAV).toBe("Operate");
    // The link works once; a second visit says so, in the console's look.
    const again = await (await browser.newContext()).newPage();
    expect((await again.goto(link))?.status()).toBe(410);
    await capture(again, "invitation-used");
    await again.context().close();
    // Nothing yet: the page says what to do first.
    expect(await owner.locator("#start-h").textContent()).toBe("Get started");
    await capture(owner, "owner-home-empty");
  });

  it(
    "Add a business offers CalDAV; the account is checked; setup starts from sensible defaults; it offers time",
    { timeout: 180_000 },
    async () => {
      await owner.getByRole("link", { name: "Add your first business" }).click();
      await expect.poll(() => h1(owner), NAV).toBe("Add a business");
      // The console's navigation is on this page too, marking where the owner is.
      expect(await owner.locator('nav a[aria-current="page"]').textContent()).toBe("Add a business");
      // The only source this gateway offers (no OAuth client is configured) is already chosen,
      // and the others say what would turn them on.
      expect(await owner.getByLabel("CalDAV calendar (iCloud, Fastmail, Nextcloud…)").isChecked()).toBe(true);
      expect(await owner.locator("#source-note").textContent()).toContain("GOOGLE_CLIENT_ID");
      await owner.getByLabel("Business name").fill(NAME);
      await owner.getByLabel("Time zone").fill(ZONE);
      await capture(owner, "add-business");
      await owner.getByRole("button", { name: "Continue" }).click();
      await owner.waitForURL(`${server.publicOrigin}/console/hosts/${HOST_ID}/caldav`, NAV);
      expect(await h1(owner)).toBe(`Connect the calendar of ${NAME}`);
      await capture(owner, "caldav-connect");

      await owner.getByLabel("CalDAV server URL").fill(proxy.url);
      await owner.getByLabel("Username").fill(CALDAV_USER);
      await owner.getByLabel("Password", { exact: true }).fill("not-the-password");
      await owner.getByRole("button", { name: "Connect", exact: true }).click();
      await owner.waitForSelector("#error-summary", NAV);
      // Not "cannot keep CalDAV passwords": the server's refusal of this password.
      expect(await owner.textContent("#error-summary")).not.toContain("cannot keep");
      await capture(owner, "caldav-connect-refused");
      await owner.getByLabel("Password", { exact: true }).fill(CALDAV_PASSWORD);
      await owner.getByRole("button", { name: "Connect", exact: true }).click();
      await owner.waitForURL(`${server.publicOrigin}/console/hosts/${HOST_ID}/setup`, NAV);
      expect(await owner.locator("[role=alert]").count()).toBe(0);

      // The account's one calendar is ticked to read and to write into.
      const read = owner.locator(`input[name=read][value="${xandikos.defaultCalendar}"]`);
      const write = owner.locator(`input[name=write][value="${xandikos.defaultCalendar}"]`);
      expect(await read.isChecked()).toBe(true);
      expect(await write.isChecked()).toBe(true);
      // Toronto: Canadian dollars and a +1 number, not another country's.
      expect(await owner.getByLabel("Currency (service 1)").inputValue()).toBe("CAD");
      expect(await owner.getByLabel("Approver phone").getAttribute("placeholder")).toMatch(/^\+1 /);
      // "Just me" needs no number of units; choosing several shows it.
      expect(await owner.getByLabel("How many at once").isVisible()).toBe(false);
      await owner.getByLabel("Several at once (chairs, rooms, people on the team…)").check();
      expect(await owner.getByLabel("How many at once").isVisible()).toBe(true);
      await owner.getByLabel("Just me: one booking at a time").check();
      expect(await owner.getByLabel("How many at once").isVisible()).toBe(false);
      // Grouped and tight: the whole form at a desktop's width is well under the 3,910 px it was.
      const tall = await owner.evaluate<number>("document.documentElement.scrollHeight");
      expect(tall).toBeLessThan(2_600);
      await capture(owner, "setup");

      // Saved without a service: the form says what is missing, beside it.
      await owner.getByRole("button", { name: "Start taking bookings" }).click();
      await owner.waitForSelector("#error-summary", NAV);
      expect(await owner.locator("#svc0_name-error").textContent()).toContain("Offer at least one service");
      // The blank rows come back blank, as many as before: one needed, one more optional.
      expect(await owner.locator("legend", { hasText: /^Service \d/ }).allTextContents()).toEqual([
        "Service 1",
        "Service 2 (optional)",
      ]);
      await capture(owner, "setup-refused");

      await owner.getByLabel("Name (service 1)").fill("Physiotherapy session");
      await owner.getByLabel("Length in minutes (service 1)").fill("45");
      await owner.getByLabel("Price (service 1)").fill("95.00");
      await owner.getByLabel("Approver e-mail").fill(OWNER_EMAIL);
      await owner.getByLabel("Approver phone").fill("+1 (416) 555-0142");
      await owner.getByRole("button", { name: "Start taking bookings" }).click();
      await expect
        .poll(async () => {
          const title = await h1(owner);
          if (title === "Operate") return title;
          return `${title}: ${(await owner.locator("[role=alert]").allTextContents()).join(" | ")}`;
        }, NAV)
        .toBe("Operate");
      expect(await owner.locator("p.flash[role=status]").textContent()).toBe(
        `${NAME} is taking bookings. Agents find it at ${server.publicOrigin}/hosts/${HOST_ID}/scheduling.json`,
      );
      await capture(owner, "owner-home");

      // An agent finds it and is offered time next Tuesday, around the calendar's busy time.
      expect(await server.runtime.syncCalendarNow(HOST_ID)).toBe(true);
      const agent = newAgent({ clock });
      const host = must(
        await agent.client.discoverHost(`${server.publicOrigin}/hosts/${HOST_ID}/scheduling.json`),
        "discover",
      );
      expect(host.document.host.timezone).toBe(ZONE);
      const tuesday = addDays(nextMonday(), 1);
      const slots = await slotsOn(agent, host, tuesday);
      expect(slots.length).toBeGreaterThan(0);
      const [busyFrom, busyTo] = [at(tuesday, 10), at(tuesday, 11, 30)];
      for (const s of slots) {
        const start = Date.parse(s.start);
        expect(
          start + 45 * 60_000 <= busyFrom || start >= busyTo,
          `slot ${s.start} overlaps the busy time`,
        ).toBe(true);
      }
      expect(slots.some((s) => Date.parse(s.start) >= busyTo)).toBe(true);

      // A booking on Wednesday waits for the owner's approval (the default).
      const wednesday = addDays(nextMonday(), 2);
      const [first] = await slotsOn(agent, host, wednesday);
      const booked = await holdAndBook(agent, host, host.document.services[0]!.id, first!.start);
      expect(booked.reply.body.booking.status).toBe("pending_host");
    },
  );

  it(
    "the business's week shows the calendar's busy time and the booking waiting for approval",
    { timeout: 90_000 },
    async () => {
      await owner.goto(`${server.publicOrigin}/`);
      await owner.getByRole("link", { name: `Week of ${NAME}` }).click();
      await expect.poll(() => h1(owner), NAV).toMatch(new RegExp(`^${NAME}: week of `));
      await capture(owner, "week-this");
      await owner.getByRole("link", { name: "Next week →" }).click();
      await owner.waitForURL(
        `${server.publicOrigin}/console/hosts/${HOST_ID}?week=${iso(nextMonday())}`,
        NAV,
      );
      const main = (await owner.textContent("main")) ?? "";
      expect(main).toContain(`Times in ${ZONE}`);
      const tuesday = owner.locator("section.day", { has: owner.locator("h2", { hasText: /^Tue / }) });
      expect(await tuesday.locator("li.item").allTextContents()).toContain(
        "10:00–11:30 Busy in the calendar",
      );
      const wednesday = owner.locator("section.day", { has: owner.locator("h2", { hasText: /^Wed / }) });
      expect((await wednesday.locator("li.item").allTextContents()).join("|")).toMatch(
        /\d\d:\d\d–\d\d:\d\d Physiotherapy session · waiting for your approval/,
      );
      await capture(owner, "week-next");
      // The same week, read by the other browser engine's idea of a phone: a list per day.
      await owner.setViewportSize({ width: 390, height: 900 });
      expect(await owner.locator(".hourcol").isVisible()).toBe(false);
      await owner.setViewportSize({ width: 1280, height: 900 });
    },
  );

  it(
    "settings, the A2A key, disconnect and an unknown host: each in the console's look",
    { timeout: 90_000 },
    async () => {
      await owner.goto(`${server.publicOrigin}/console/hosts/${HOST_ID}/settings`);
      expect(await h1(owner)).toBe(`Settings of ${NAME}`);
      expect(await owner.getByLabel("Approver phone").inputValue()).toBe("+14165550142");
      await capture(owner, "settings");
      await owner.goto(`${server.publicOrigin}/`);
      // The CalDAV host takes A2A cancels and reschedules: its key is issued here.
      await owner.getByRole("link", { name: `A2A key of ${NAME}` }).click();
      await expect.poll(() => h1(owner), NAV).toBe(`A2A API key for ${NAME}`);
      await capture(owner, "a2a-key");
      await owner.getByRole("button", { name: "Issue a new key" }).click();
      await expect.poll(() => h1(owner), NAV).toBe(`New A2A API key for ${NAME}`);
      await capture(owner, "a2a-key-issued");
      await owner.goto(`${server.publicOrigin}/`);
      await owner.getByRole("link", { name: `Disconnect ${NAME}` }).click();
      await expect.poll(() => h1(owner), NAV).toBe(`Disconnect ${NAME}?`);
      await capture(owner, "disconnect-confirm");
      const missing = await owner.goto(`${server.publicOrigin}/console/hosts/nobody-here`);
      expect(missing?.status()).toBe(404);
      expect(await owner.textContent("header")).toContain(`Signed in as ${OWNER_EMAIL}`);
      await capture(owner, "not-found");
    },
  );

  it("a business left half-added is deleted from the home page", { timeout: 90_000 }, async () => {
    await owner.goto(`${server.publicOrigin}/console/hosts/new`);
    await owner.getByLabel("Business name").fill("Second Thoughts");
    await owner.getByLabel("Time zone").fill("Europe/Madrid");
    await owner.getByRole("button", { name: "Continue" }).click();
    await owner.waitForURL(`${server.publicOrigin}/console/hosts/second-thoughts/caldav`, NAV);
    await owner.getByRole("link", { name: "Operate" }).click();
    await expect.poll(() => h1(owner), NAV).toBe("Operate");
    expect(await owner.locator("#drafts-h").textContent()).toBe("Not set up yet");
    await capture(owner, "owner-home-draft");
    await owner.getByRole("link", { name: "Delete Second Thoughts" }).click();
    await expect.poll(() => h1(owner), NAV).toBe("Delete Second Thoughts?");
    await capture(owner, "delete-draft");
    await owner.getByRole("button", { name: "Delete Second Thoughts" }).click();
    await expect.poll(() => h1(owner), NAV).toBe("Operate");
    expect(await owner.locator("p.flash[role=status]").textContent()).toBe("Deleted Second Thoughts.");
    expect(await owner.locator("#drafts-h").count()).toBe(0);
    expect(await server.runtime.managedHosts.store.get("second-thoughts")).toBeUndefined();

    // The owner answers the booking waiting for approval.
    await owner.getByRole("button", { name: /^Approve Physiotherapy session/ }).click();
    await expect.poll(() => owner.locator("p.flash[role=status]").textContent(), NAV).toMatch(/^Approved: /);
    await capture(owner, "owner-home-approved");

    await operator.goto(`${server.publicOrigin}/`);
    await capture(operator, "operator-home-with-business");
    // A host whose time comes from a platform: its week shows the bookings, and says why only them.
    await operator.getByRole("link", { name: "Week of Maple Street Auto" }).click();
    await expect.poll(() => h1(operator), NAV).toMatch(/^Maple Street Auto: week of /);
    expect(await operator.textContent("main")).toContain(
      "only the bookings made through this gateway are shown",
    );
    await capture(operator, "week-platform-host");
    expect(cspErrors).toEqual([]);
  });
});

/** The slots an agent is offered on one local day. */
async function slotsOn(agent: E2eAgent, host: DiscoveredHost, day: LocalDate) {
  const r = await agent.client.availability(host, {
    service_id: host.document.services[0]!.id,
    window: { start: formatInstant(at(day, 0), ZONE), end: formatInstant(at(addDays(day, 1), 0), ZONE) },
    limit: 50,
  });
  return must(r, "availability").body.slots;
}
