/**
 * A person's own calendar (SchCP §7.7, §7.8, §7.9), end to end in a real headless Chromium on a
 * gateway started the default way (`booking-gateway serve` in process, as
 * console-default-start.test.ts), against a real CalDAV server (xandikos behind a proxy that
 * checks the password):
 *
 * 1. The person's key is made in the browser by the console's key app (WebCrypto Ed25519, kept
 *    in IndexedDB), which shows its principal; the person adds their calendar as "One person",
 *    connects CalDAV and names that principal as the owner.
 * 2. They add a contact by principal and name on the Contacts page; the list is in no
 *    discovery document.
 * 3. They sign a rule on the Rules page: the browser signs it, the server verifies and keeps it.
 * 4. The contact's agent (the agent SDK, over SchCP HTTP) books what the rule covers: confirmed
 *    at once with answer.by "rule" and the rule's label. A stranger is refused not_a_contact.
 *
 * Pages are captured at 390 and 1280 px (test-artifacts/console-person/) and run through
 * axe-core: no serious or critical violation, no CSP refusal.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
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
import { verifyHoldOffer, type DiscoveredHost, type IssuedMandate } from "../../src/agent/index.js";
import { startBasicAuthProxy, type BasicAuthProxy } from "../support/basic-auth-proxy.js";
import { launchChromium } from "../support/chromium.js";
import { repoRoot } from "../support/fixtures.js";
import { startXandikos, XANDIKOS_START_TIMEOUT_MS, type Xandikos } from "../support/xandikos.js";
import { holdAndBook, must, newAgent, openMandate, refusalOf, type E2eAgent } from "./support/agents.js";
import { TestClock } from "./support/gateway.js";

const ARTIFACTS = join(repoRoot, "test-artifacts", "console-person");
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");
const WIDTHS = [390, 1280] as const;
const NAV = { timeout: 30_000 };

const ZONE = "America/Toronto";
const HOST_ID = "amara-osei";
const NAME = "Amara Osei";
const CALDAV_USER = "amara@example.org";
const CALDAV_PASSWORD = "app-pass-Amara-2026";
const EMAIL = "amara@example.org";
const PASSWORD = "amara's long passphrase";
const RULE = "Wednesday coffee with Ellis";

let dataDir: string;
let xandikos: Xandikos;
let proxy: BasicAuthProxy;
let server: RunningServer;
let browser: Browser;
let person: Page;
let principal = "";
const clock = new TestClock();
let ellis: E2eAgent;
const cspErrors: string[] = [];

const today = (): LocalDate => instantToWallClock(clock.now(), ZONE);
const at = (d: LocalDate, hour: number): number => {
  const t = wallClockToInstant({ ...d, hour, minute: 0, second: 0, millisecond: 0 }, ZONE, "compatible");
  if (!t.ok) throw new Error("no such local time");
  return t.value;
};
/** Next week's Wednesday in the person's zone. */
const nextWednesday = (): LocalDate => addDays(today(), 8 - isoWeekday(today()) + 2);

/** Ellis (a contact) finds the person's calendar and the coffee starts free on `day`. */
async function coffeeOn(
  day: LocalDate,
  limit = 5,
): Promise<{ host: DiscoveredHost; mandate: IssuedMandate; starts: string[] }> {
  const host = must(
    await ellis.client.discoverHost(`${server.publicOrigin}/hosts/${HOST_ID}/scheduling.json`),
    "discover",
  );
  const mandate = await openMandate(ellis, HOST_ID);
  const slots = must(
    await ellis.client.availability(
      host,
      {
        service_id: "coffee",
        window: { start: formatInstant(at(day, 0), ZONE), end: formatInstant(at(addDays(day, 1), 0), ZONE) },
        limit,
      },
      { mandate: mandate.compact },
    ),
    "availability",
  ).body.slots;
  return { host, mandate, starts: slots.map((x) => x.start) };
}

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  dataDir = mkdtempSync(join(tmpdir(), "gw-person-"));
  xandikos = await startXandikos();
  proxy = await startBasicAuthProxy(new URL(xandikos.serverUrl), CALDAV_USER, CALDAV_PASSWORD);
  const started = await runCli(["serve"], {
    env: { GATEWAY_DATA_DIR: join(dataDir, "data"), PORT: "0", UPSTREAM_ALLOW_PRIVATE: "1" },
    out: () => undefined,
    err: () => undefined,
    cwd: dataDir,
  });
  if (typeof started !== "object" || !("publicOrigin" in started)) throw new Error("serve did not start");
  server = started;
  browser = await launchChromium();
  ellis = newAgent({ clock });
}, 120_000 + XANDIKOS_START_TIMEOUT_MS);

afterAll(async () => {
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
const flash = (page: Page) => page.locator("p.flash[role=status]").first().textContent();

/** Screenshots at each width, nothing wider than the window, and axe-core's serious findings (none). */
async function capture(page: Page, name: string): Promise<void> {
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: 900 });
    await page.screenshot({ path: join(ARTIFACTS, `${name}-${width}.png`), fullPage: true });
    const wider = await page.evaluate<number>(
      "[...document.querySelectorAll('body *')].filter((el) => el.getBoundingClientRect().right > document.documentElement.clientWidth + 0.5).length",
    );
    expect(wider, `${name} scrolls sideways at ${width} px`).toBe(0);
    await page.evaluate(AXE_SOURCE);
    const serious = await page.evaluate<string[]>(
      'axe.run(document, { resultTypes: ["violations"] }).then((r) => r.violations' +
        '.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => v.id + ": " + v.help))',
    );
    expect(serious, `${name} at ${width} px`).toEqual([]);
  }
  await page.setViewportSize({ width: 1280, height: 900 });
}

describe("a person's calendar: contacts, a rule signed in the console, and a booking the rule answers", () => {
  it(
    "the person is invited, and the key app makes their key in the browser",
    { timeout: 90_000 },
    async () => {
      const operator = await newPage();
      await operator.goto(`${server.publicOrigin}/`);
      await operator.getByLabel("Operator credential").fill(server.runtime.operatorToken);
      await operator.getByRole("button", { name: "Sign in", exact: true }).click();
      await expect.poll(() => h1(operator), NAV).toBe("Operate");
      await operator.getByRole("link", { name: "Owners" }).click();
      await operator.getByLabel("Owner's email").fill(EMAIL);
      await operator.getByRole("button", { name: "Create invitation link" }).click();
      const link = (await operator.locator("#invitation-link").textContent()) ?? "";

      person = await newPage();
      await person.goto(link);
      await person.getByLabel("New password").fill(PASSWORD);
      await person.getByLabel("Confirm the password").fill(PASSWORD);
      await person.getByRole("button", { name: "Set password and sign in" }).click();
      await expect.poll(() => h1(person), NAV).toBe("Operate");

      await person.getByRole("link", { name: "Key app" }).click();
      await expect.poll(() => h1(person), NAV).toBe("Your key");
      await expect
        .poll(() => person.getByLabel("Your principal").inputValue(), NAV)
        .toMatch(/^urn:schcp:principal:jwk-thumbprint:[A-Za-z0-9_-]{43}$/);
      principal = await person.getByLabel("Your principal").inputValue();
      expect(await person.locator("#key-status").textContent()).toBe("Your key is kept in this browser.");
      // The private key cannot be read out of the browser: WebCrypto refuses to export it.
      const exported = await person.evaluate<string>(`new Promise((resolve) => {
      const r = indexedDB.open("schcp-console-key-app", 1);
      r.onsuccess = () => {
        const get = r.result.transaction("keys").objectStore("keys").get("principal");
        get.onsuccess = () => crypto.subtle.exportKey("jwk", get.result.privateKey)
          .then(() => resolve("exported"), (e) => resolve(e.name));
      };
    })`);
      expect(exported).toBe("InvalidAccessError");
      // The same key the next time: kept, not made again.
      await person.reload();
      await expect.poll(() => person.getByLabel("Your principal").inputValue(), NAV).toBe(principal);
      await capture(person, "key");
    },
  );

  it(
    "the person adds their calendar: One person, CalDAV, their principal as the owner",
    { timeout: 180_000 },
    async () => {
      await person.goto(`${server.publicOrigin}/console/hosts/new`);
      await person.getByLabel("Business name").fill(NAME);
      await person.getByLabel("Time zone").fill(ZONE);
      await person.getByLabel("One person").check();
      await person.getByRole("button", { name: "Continue" }).click();
      await person.waitForURL(`${server.publicOrigin}/console/hosts/${HOST_ID}/caldav`, NAV);
      await person.getByLabel("CalDAV server URL").fill(proxy.url);
      await person.getByLabel("Username").fill(CALDAV_USER);
      await person.getByLabel("Password", { exact: true }).fill(CALDAV_PASSWORD);
      await person.getByRole("button", { name: "Connect", exact: true }).click();
      await person.waitForURL(`${server.publicOrigin}/console/hosts/${HOST_ID}/setup`, NAV);

      // A person's calendar asks whose it is; it is contacts-only unless they say otherwise.
      await person.getByLabel("Your principal").fill(principal);
      expect(await person.getByLabel("Only the people I list below").isChecked()).toBe(true);
      await person.getByLabel("Name (service 1)").fill("Coffee");
      await person.getByLabel("Length in minutes (service 1)").fill("45");
      await person.getByLabel("Approver e-mail").fill(EMAIL);
      await capture(person, "setup-person");
      await person.getByRole("button", { name: "Start taking bookings" }).click();
      await expect
        .poll(async () => {
          const title = await h1(person);
          if (title === "Operate") return title;
          return `${title}: ${(await person.locator("[role=alert]").allTextContents()).join(" | ")}`;
        }, NAV)
        .toBe("Operate");
      const host = server.runtime.hosts.get(HOST_ID);
      expect(host?.config).toMatchObject({
        kind: "person",
        owner: principal,
        policies: { access: "contacts" },
      });
      expect(await server.runtime.syncCalendarNow(HOST_ID)).toBe(true);
    },
  );

  it(
    "the person adds a contact by principal and name; the list is not published",
    { timeout: 90_000 },
    async () => {
      await person.goto(`${server.publicOrigin}/`);
      await person.getByRole("link", { name: `Contacts of ${NAME}` }).click();
      await expect.poll(() => h1(person), NAV).toBe(`Contacts of ${NAME}`);
      expect(await person.textContent("main")).toContain("Nobody yet.");
      // Not a principal: refused, nothing kept.
      await person.getByLabel("Name").fill("Someone");
      await person.getByLabel("Their principal").fill("urn:example:not-a-principal");
      await person.getByRole("button", { name: "Add contact" }).click();
      await expect
        .poll(() => person.locator("p.flash.error").textContent(), NAV)
        .toContain("That is not a principal");

      await person.getByLabel("Name").fill("Ellis Moreau");
      await person.getByLabel("Their principal").fill(ellis.keyApp.principal);
      await person.getByRole("button", { name: "Add contact" }).click();
      await expect.poll(() => flash(person), NAV).toBe("Added Ellis Moreau.");
      expect(await person.locator("tbody th[scope=row]").allTextContents()).toEqual(["Ellis Moreau"]);
      await capture(person, "contacts");

      const doc = await (await fetch(`${server.publicOrigin}/hosts/${HOST_ID}/scheduling.json`)).text();
      expect(doc).toContain('"contacts"');
      expect(doc).not.toContain(ellis.keyApp.principal);
      expect(doc).not.toContain("Ellis");
    },
  );

  it(
    "the person signs a rule in the console; the server verifies and keeps it",
    { timeout: 90_000 },
    async () => {
      await person.goto(`${server.publicOrigin}/`);
      await person.getByRole("link", { name: `Rules of ${NAME}` }).click();
      await expect.poll(() => h1(person), NAV).toBe(`Rules of ${NAME}`);
      await expect
        .poll(() => person.locator("#key-status").textContent(), NAV)
        .toBe("Your key is ready to sign.");
      await person.getByLabel("Label").fill(RULE);
      await person.getByLabel("Coffee").check();
      await person.getByLabel("Wednesday").check();
      await person.getByLabel("Only from these people (optional)").fill(ellis.keyApp.principal);
      // The rule ends with the chosen day on the calendar's own clock, not UTC's.
      const lastDay = new Date(Date.now() + 60 * 86_400_000).toISOString().slice(0, 10);
      await person.getByLabel("Until").fill(lastDay);
      await person.getByRole("button", { name: "Sign and save the rule" }).click();
      await expect.poll(() => flash(person), NAV).toBe(`Signed and kept: “${RULE}”.`);
      const row = person.locator("tbody tr", { hasText: RULE });
      expect(await row.locator("td").first().textContent()).toBe(`Coffee · Wed (${ZONE}) · from 1 person`);
      const until = (await row.locator("td").nth(1).textContent()) ?? "";
      expect(until).toContain(` ${Number(lastDay.slice(8))} `);
      expect(until).toMatch(new RegExp(`, 23:59 \\(${ZONE}\\)$`));
      await capture(person, "rules");
    },
  );

  it(
    "the contact's agent books what the rule covers: confirmed, answer.by rule with the rule's label",
    { timeout: 90_000 },
    async () => {
      const host: DiscoveredHost = must(
        await ellis.client.discoverHost(`${server.publicOrigin}/hosts/${HOST_ID}/scheduling.json`),
        "discover",
      );
      expect(host.document.host.kind).toBe("person");
      const mandate = await openMandate(ellis, HOST_ID);
      const day = nextWednesday();
      const slots = must(
        await ellis.client.availability(
          host,
          {
            service_id: "coffee",
            window: {
              start: formatInstant(at(day, 0), ZONE),
              end: formatInstant(at(addDays(day, 1), 0), ZONE),
            },
            limit: 50,
          },
          { mandate: mandate.compact },
        ),
        "availability",
      ).body.slots;
      expect(slots.length).toBeGreaterThan(0);

      // A stranger is refused before anything about the time is said (§7.8).
      const stranger = newAgent({ clock });
      const refused = refusalOf(
        await stranger.client.availability(
          host,
          {
            service_id: "coffee",
            window: { start: slots[0]!.start, end: formatInstant(at(addDays(day, 1), 0), ZONE) },
          },
          { mandate: (await openMandate(stranger, HOST_ID)).compact },
        ),
      );
      expect({ status: refused.status, code: refused.code, reason: refused.reason }).toEqual({
        status: 403,
        code: "NOT_PERMITTED",
        reason: "not_a_contact",
      });

      const booked = await holdAndBook(ellis, host, "coffee", slots[0]!.start, mandate);
      expect(booked.reply.body.booking.status).toBe("confirmed");
      expect(booked.reply.body.booking.answer).toMatchObject({ by: "rule", rule: RULE });

      // The person sees it among their own bookings: their week.
      await person.goto(
        `${server.publicOrigin}/console/hosts/${HOST_ID}?week=${formatInstant(at(day, 12), ZONE).slice(0, 10)}`,
      );
      const wednesday = person.locator("section.day", { has: person.locator("h2", { hasText: /^Wed / }) });
      expect((await wednesday.locator("li.item").allTextContents()).join("|")).toContain("Coffee");
      expect(cspErrors).toEqual([]);
    },
  );

  it(
    "a booking no rule covers waits for the person, who answers it in the console: answer.by person",
    { timeout: 90_000 },
    async () => {
      const { host, mandate, starts } = await coffeeOn(addDays(nextWednesday(), 1));
      const booked = await holdAndBook(ellis, host, "coffee", starts[0]!, mandate);
      expect(booked.reply.body.booking.status).toBe("pending_host");

      await person.goto(`${server.publicOrigin}/`);
      await person.getByRole("button", { name: /^Approve Coffee/ }).click();
      await expect.poll(() => flash(person), NAV).toMatch(/^Approved: Coffee at Amara Osei/);
      const now = must(
        await ellis.client.getBooking(host, booked.reply.body.booking.booking_id, {
          mandate: mandate.compact,
        }),
        "get booking",
      );
      expect(now.body.booking.status).toBe("confirmed");
      expect(now.body.booking.answer?.by).toBe("person");
      expect(now.body.booking.answer?.rule).toBeUndefined();
    },
  );

  it(
    "§5.12 a contact's meeting: the person answers the invitation from the console, signing the acceptance in the browser; the organizer commits with it",
    { timeout: 90_000 },
    async () => {
      // A Friday: Ellis's rule answers Wednesdays only, so the person is asked.
      const { host, mandate, starts } = await coffeeOn(addDays(nextWednesday(), 2));
      const hold = must(
        await ellis.client.hold(
          host,
          { service_id: "coffee", start: starts[0]! },
          { mandate: mandate.compact },
        ),
        "hold",
      );
      const offer = must(await verifyHoldOffer(hold.body, host), "verify hold").offer;
      const contract = must(
        await ellis.keyApp.signMeetingContract({
          exp: Math.floor(clock.now() / 1000) + 6 * 3600,
          meeting_id: "mtg_console",
          revision: 1,
          title: "Coffee",
          tz: ZONE,
          start: hold.body.start,
          end: hold.body.end!,
          place: { name: "Bellwoods Café", locality: "Toronto" },
          members: [
            {
              principal: ellis.keyApp.principal,
              name: "Ellis M.",
              host: "ellis-moreau",
              domain: null,
              service_id: "coffee",
              offer_sha256: "E".repeat(42) + "A",
            },
            {
              principal,
              name: NAME,
              host: HOST_ID,
              domain: null,
              service_id: "coffee",
              offer_sha256: offer.sha256,
            },
          ],
        }),
        "sign contract",
      );
      const confirmed = must(
        await ellis.client.confirmMeeting(host, hold.body.hold_id, contract.compact, offer.sha256, {
          mandate: mandate.compact,
        }),
        "confirm",
      );
      expect(confirmed.body.booking.status).toBe("pending_host");
      const bookingId = confirmed.body.booking.booking_id;

      await person.goto(`${server.publicOrigin}/`);
      await person.getByRole("link", { name: /^Answer the meeting invitation: Coffee/ }).click();
      await expect.poll(() => h1(person), NAV).toBe("You are invited to a meeting");
      // The organizer named by the person's own contact name, never only by the organizer's label.
      expect(await person.locator("#people").textContent()).toBe(
        "Ellis Moreau (in your contacts), who arranged it",
      );
      await expect
        .poll(() => person.locator("#key-status").textContent(), NAV)
        .toBe("Your key is ready to sign your acceptance.");
      await capture(person, "meeting-invitation");
      await person.getByRole("button", { name: "Accept and sign" }).click();
      await expect
        .poll(() => person.locator("main").textContent(), NAV)
        .toContain("You accepted the meeting");

      const now = must(await ellis.client.getBooking(host, bookingId, { mandate: mandate.compact }), "get")
        .body.booking;
      expect(now).toMatchObject({ status: "tentative", answer: { by: "person" } });
      const acceptance = now.meeting?.acceptance;
      expect(typeof acceptance).toBe("string");
      // The browser's signature is one the organizer can hand over: the commit takes it.
      const done = must(
        await ellis.client.commitMeeting(
          host,
          bookingId,
          { contract_sha256: contract.sha256, acceptances: [acceptance!] },
          { mandate: mandate.compact },
        ),
        "commit",
      );
      expect(done.body.booking.status).toBe("confirmed");
    },
  );

  it("a contact the person removes can no longer see their time (§7.8)", { timeout: 90_000 }, async () => {
    await person.goto(`${server.publicOrigin}/console/hosts/${HOST_ID}/contacts`);
    await person.getByRole("button", { name: "Remove Ellis Moreau" }).click();
    await expect
      .poll(() => flash(person), NAV)
      .toBe("Removed Ellis Moreau. They can no longer see your time or book it.");
    expect(await person.textContent("main")).toContain("Nobody yet.");
    const host = must(
      await ellis.client.discoverHost(`${server.publicOrigin}/hosts/${HOST_ID}/scheduling.json`),
      "discover",
    );
    const day = nextWednesday();
    const refused = refusalOf(
      await ellis.client.availability(
        host,
        {
          service_id: "coffee",
          window: {
            start: formatInstant(at(day, 0), ZONE),
            end: formatInstant(at(addDays(day, 1), 0), ZONE),
          },
        },
        { mandate: (await openMandate(ellis, HOST_ID)).compact },
      ),
    );
    expect(refused.reason).toBe("not_a_contact");
    expect(cspErrors).toEqual([]);
  });
});
