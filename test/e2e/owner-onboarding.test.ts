/**
 * End to end: a business owner onboards their own businesses through
 * the console pages in a real headless Chromium, against the real gateway on loopback and the
 * local stand-ins of Google, Microsoft and Square (test/support/oauth-standins), with the
 * providers' real origins routed to them (routing.ts) so every return from a consent page is a
 * genuine cross-site navigation.
 *
 * 1. The operator invites an owner; the owner sets a password and lands on Operate.
 * 2. Per provider: Add a business → the provider's consent → Allow → the setup page lists the
 *    upstream's calendars (Google, Graph fakes) or locations and services (Square: its API is
 *    the platform fake test/e2e/support/fake-square.ts behind the stand-in's origin) → save →
 *    the host is in discovery and offers time to a signed SchCP availability request.
 *    CalDAV: the account is checked live against a real xandikos behind a proxy that checks
 *    Basic credentials (a wrong password is refused), then the same setup and checks.
 * 3. A second owner sees none of the first owner's hosts and gets 404 on their settings.
 * 4. Google refuses the refresh (invalid_grant) once the access token is refused: the host
 *    turns needs_reconnection, its time is refused with that reason, and Operate shows it.
 * 5. Disconnect through the link and its confirmation: the host leaves discovery.
 *
 * Screenshots: test-artifacts/screenshots/onboarding-*.png (git-ignored).
 */
import { randomBytes } from "node:crypto";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatInstant } from "../../src/protocol/time/index.js";
import { AUTHORIZATION_ORIGINS } from "../../src/edges/console/connect/providers.js";
import { BasicCredentialVault } from "../../src/edges/console/connect/basic-vault.js";
import { MemorySealedStore } from "../../src/gateway/credentials/store.js";
import { parseKeyRing } from "../../src/gateway/credentials/key-ring.js";
import { TokenVault } from "../../src/gateway/credentials/vault.js";
import { createPolicyFetch } from "../../src/protocol/net/policy-fetch.js";
import { launchChromium } from "../support/chromium.js";
import {
  installRewritingFetch,
  originMap,
  rewritingFetch,
  routeBrowserToStandins,
  squareApi,
  startGoogleCalendarFake,
  startGoogleStandin,
  startGraphCalendarFake,
  startMicrosoftStandin,
  startSquareStandin,
  type CalendarApiFake,
  type OAuthStandin,
} from "../support/oauth-standins/index.js";
import { screenshot } from "../support/screenshots.js";
import { startBasicAuthProxy, type BasicAuthProxy } from "../support/basic-auth-proxy.js";
import { startXandikos, XANDIKOS_START_TIMEOUT_MS, type Xandikos } from "../support/xandikos.js";
import { DAY_MS, discover, freeSlots, newAgent, refusalOf } from "./support/agents.js";
import { FakeSquareServer, SQUARE_HAIRCUT, SQUARE_LOCATION_ID } from "./support/fake-square.js";
import { startGateway, type E2eGateway } from "./support/gateway.js";

const ENV = {
  GOOGLE_CLIENT_ID: "standin-google-client.apps.googleusercontent.com",
  GOOGLE_CLIENT_SECRET: "GOCSPX-standin-secret",
  MICROSOFT_CLIENT_ID: "00000000-0000-0000-0000-0000000c11e7",
  MICROSOFT_CLIENT_SECRET: "ms~standin-secret",
  SQUARE_CLIENT_ID: "sq0idp-standin-client",
  SQUARE_CLIENT_SECRET: "sq0csp-standin-secret",
};
const TENANT = "contoso.onmicrosoft.com";
const SQUARE_TOKEN = "EAAAl-onboarding-square-token";
/** Generous: two shared cores run Chromium, the gateway, Redis and the stand-ins. */
const NAV = { timeout: 30_000 };

const CALDAV_USER = "cleo@studio.example";
const CALDAV_PASSWORD = "caldav-app-Pa55word";

type Provider = "google" | "microsoft" | "square";
interface Business {
  readonly provider: Provider | "caldav";
  readonly id: string;
  readonly name: string;
  readonly timezone: string;
  /** The source radio's label on "Add a business" (setup/new-host.ts SOURCE_NAME). */
  readonly source: string;
}
type OAuthBusiness = Business & { readonly provider: Provider };
const BUSINESSES: Record<Provider, OAuthBusiness> = {
  google: {
    provider: "google",
    id: "ana-tutoring",
    name: "Ana Tutoring",
    timezone: "America/New_York",
    source: "Google Calendar",
  },
  microsoft: {
    provider: "microsoft",
    id: "ben-physio",
    name: "Ben Physio",
    timezone: "Europe/Madrid",
    source: "Microsoft 365 calendar",
  },
  square: {
    provider: "square",
    id: "maple-cuts",
    name: "Maple Cuts",
    timezone: "America/Toronto",
    source: "Square",
  },
};

const CALDAV: Business = {
  provider: "caldav",
  id: "cleo-studio",
  name: "Cleo Photo Studio",
  timezone: "Europe/Lisbon",
  source: "CalDAV calendar (iCloud, Fastmail, Nextcloud…)",
};

let gw: E2eGateway;
let browser: Browser;
let restoreFetch: (() => void) | undefined;
let map: Map<string, string>;
const standins = {} as Record<Provider, OAuthStandin>;
let googleApi: CalendarApiFake;
let graphApi: CalendarApiFake;
let square: FakeSquareServer;
let xandikos: Xandikos;
/** xandikos has no authentication: a proxy that checks Basic credentials sits in front of it. */
let caldavProxy: BasicAuthProxy | undefined;
let caldavUrl: string;
/** The operator's page and the first owner's. */
let operator: Page;
let owner: Page;

beforeAll(async () => {
  const clients = { google: [] as string[], microsoft: [] as string[], square: [] as string[] };
  square = new FakeSquareServer(SQUARE_TOKEN);
  await square.start();
  standins.google = await startGoogleStandin({
    clientId: ENV.GOOGLE_CLIENT_ID,
    clientSecret: ENV.GOOGLE_CLIENT_SECRET,
    redirectUris: clients.google,
  });
  standins.microsoft = await startMicrosoftStandin({
    clientId: ENV.MICROSOFT_CLIENT_ID,
    clientSecret: ENV.MICROSOFT_CLIENT_SECRET,
    redirectUris: clients.microsoft,
    tenant: TENANT,
  });
  standins.square = await startSquareStandin({
    clientId: ENV.SQUARE_CLIENT_ID,
    clientSecret: ENV.SQUARE_CLIENT_SECRET,
    redirectUris: clients.square,
    fixedAccessToken: SQUARE_TOKEN,
    api: squareApi({ origin: square.origin, token: SQUARE_TOKEN }),
  });
  googleApi = await startGoogleCalendarFake(standins.google);
  graphApi = await startGraphCalendarFake(standins.microsoft);
  map = originMap(standins.google, standins.microsoft, standins.square, googleApi, graphApi);
  // Before the gateway starts: Connect and the connectors keep the fetch they find.
  restoreFetch = installRewritingFetch(map);

  xandikos = await startXandikos();
  caldavProxy = await startBasicAuthProxy(new URL(xandikos.serverUrl), CALDAV_USER, CALDAV_PASSWORD);
  caldavUrl = caldavProxy.url;

  const ring = parseKeyRing(`k1:${randomBytes(32).toString("base64")}`);
  if (!ring.ok) throw new Error(ring.error);
  const store = new MemorySealedStore();
  const vault = new TokenVault(ring.value, store);
  const basic = new BasicCredentialVault(ring.value, store);
  const redisUrl = process.env["REDIS_URL"];
  gw = await startGateway({
    ...(redisUrl !== undefined && {
      redisUrl,
      redisKeyPrefix: `test:e2e-onboarding:${randomBytes(4).toString("hex")}:`,
    }),
    runtime: {
      workers: false,
      managedHostsReconcileMs: false,
      credentials: { vault, env: ENV, basic },
      // The platforms' real origins moved to their loopback stand-ins, then the address
      // policy with the tests' allowance (loopback), as UPSTREAM_ALLOW_PRIVATE=1 gives.
      connectorFetch: rewritingFetch(map, createPolicyFetch({ policy: { allowPrivate: true } })),
      connect: {
        google: { clientIdEnv: "GOOGLE_CLIENT_ID", clientSecretEnv: "GOOGLE_CLIENT_SECRET" },
        microsoft: {
          clientIdEnv: "MICROSOFT_CLIENT_ID",
          clientSecretEnv: "MICROSOFT_CLIENT_SECRET",
          tenant: TENANT,
        },
        square: { clientIdEnv: "SQUARE_CLIENT_ID", clientSecretEnv: "SQUARE_CLIENT_SECRET" },
      },
    },
  });
  for (const p of ["google", "microsoft", "square"] as const)
    clients[p].push(`${gw.origin}/connect/${p}/callback`);
  browser = await launchChromium();
}, 90_000 + XANDIKOS_START_TIMEOUT_MS);

afterAll(async () => {
  await browser?.close();
  await gw?.close();
  restoreFetch?.();
  await Promise.all([
    ...Object.values(standins).map((s) => s.close()),
    googleApi?.close(),
    graphApi?.close(),
    square?.close(),
  ]);
  await caldavProxy?.close();
  await xandikos?.stop();
});

async function newPage(): Promise<Page> {
  const context: BrowserContext = await browser.newContext();
  context.setDefaultTimeout(NAV.timeout);
  context.setDefaultNavigationTimeout(NAV.timeout);
  await routeBrowserToStandins(context, map);
  return context.newPage();
}

const h1 = (page: Page) => page.locator("h1").textContent();

async function invite(email: string): Promise<string> {
  await operator.goto(`${gw.origin}/console/owners`);
  await expect.poll(() => h1(operator), NAV).toBe("Owners");
  await operator.getByLabel("Owner's email").fill(email);
  await operator.getByRole("button", { name: "Create invitation link" }).click();
  const link = (await operator.locator("#invitation-link").textContent()) ?? "";
  expect(link.startsWith(`${gw.origin}/console/invite/`)).toBe(true);
  return link;
}

async function acceptInvitation(link: string, email: string, password: string, shot?: string): Promise<Page> {
  const page = await newPage();
  await page.goto(link);
  expect(await h1(page)).toBe(`Welcome, ${email}`);
  await page.getByLabel("New password").fill(password);
  await page.getByLabel("Confirm the password").fill(password);
  await page.getByRole("button", { name: "Set password and sign in" }).click();
  await expect.poll(() => h1(page), NAV).toBe("Operate");
  expect(await page.textContent("header")).toContain(`Signed in as ${email}`);
  if (shot !== undefined) await screenshot(page, shot);
  return page;
}

/** Operate → Add a business → the form → Continue → the provider's consent → Allow → setup. */
async function addAndConnect(b: OAuthBusiness): Promise<void> {
  await owner.goto(`${gw.origin}/`);
  const [form] = await Promise.all([
    owner.waitForResponse((r) => r.url() === `${gw.origin}/console/hosts/new`),
    owner.getByRole("link", { name: "Add a business" }).click(),
  ]);
  // The form's POST is redirected on to the consent page: Chromium checks each redirect of a
  // form submission against form-action, so the provider's origin must be named there.
  const formAction = /form-action ([^;]+)/.exec((await form.headerValue("content-security-policy")) ?? "");
  expect(formAction?.[1]?.split(" ")).toEqual(
    expect.arrayContaining(["'self'", ...AUTHORIZATION_ORIGINS[b.provider]]),
  );
  await expect.poll(() => h1(owner), NAV).toBe("Add a business");
  await owner.getByLabel("Business name").fill(b.name);
  await owner.getByLabel("Host id").fill(b.id);
  await owner.getByLabel("Time zone").fill(b.timezone);
  await owner.getByLabel(b.source, { exact: true }).check();
  await screenshot(owner, `onboarding-${b.provider}-1-add-business`);
  await owner.getByRole("button", { name: "Continue" }).click();
  await owner.waitForSelector("text=wants to access your", NAV);
  expect(new URL(owner.url()).origin).toBe(standins[b.provider].realOrigins[0]);
  await screenshot(owner, `onboarding-${b.provider}-2-consent`);
  await owner.getByRole("button", { name: "Allow" }).click();
  await owner.waitForURL(`${gw.origin}/console/hosts/${b.id}/setup`, NAV);
  await expect.poll(() => h1(owner), NAV).toBe(`Set up ${b.name}`);
  expect(await owner.locator("[role=alert]").count()).toBe(0);
}

async function saveSetup(b: Business): Promise<void> {
  await owner.getByRole("button", { name: "Start taking bookings" }).click();
  // Still on the form: its error summary says why (part of the failure message).
  await expect
    .poll(async () => {
      const title = await h1(owner);
      if (title === "Operate") return title;
      return `${title}: ${(await owner.locator("[role=alert]").allTextContents()).join(" | ")}`;
    }, NAV)
    .toBe("Operate");
  const flash = await owner.locator("p.flash[role=status]").textContent();
  expect(flash).toBe(
    `${b.name} is taking bookings. Agents find it at ${gw.origin}/hosts/${b.id}/scheduling.json`,
  );
  await screenshot(owner, `onboarding-${b.provider}-4-operate`);
}

async function discoveryIds(): Promise<string[]> {
  const res = await fetch(`${gw.origin}/.well-known/scheduling.json`);
  expect(res.status).toBe(200);
  return JSON.stringify(await res.json()).match(/\/hosts\/[a-z0-9_-]+\/scheduling\.json/g) ?? [];
}

/** In discovery, its host document answers, and a signed availability request gets slots. */
async function offersTime(b: Business, serviceId?: string): Promise<void> {
  expect(await discoveryIds()).toContain(`/hosts/${b.id}/scheduling.json`);
  const doc = await fetch(`${gw.origin}/hosts/${b.id}/scheduling.json`);
  expect(doc.status).toBe(200);
  const agent = newAgent(gw);
  const host = await discover(agent, gw, b.id);
  expect(host.document.host.timezone).toBe(b.timezone);
  const service = serviceId ?? host.document.services[0]!.id;
  expect(host.document.services.map((s) => s.id)).toContain(service);
  const slots = await freeSlots(agent, gw, host, service);
  expect(slots.length).toBeGreaterThan(0);
}

describe("a business owner onboards their businesses through the console", () => {
  it(
    "the operator invites an owner; the owner sets a password and lands on Operate",
    { timeout: 60_000 },
    async () => {
      operator = await newPage();
      await operator.goto(`${gw.origin}/`);
      await operator.getByLabel("Operator credential").fill(gw.runtime.operatorToken);
      await operator.getByRole("button", { name: "Sign in", exact: true }).click();
      await expect.poll(() => h1(operator), NAV).toBe("Operate");
      const link = await invite("ana@tutoring.example");
      await screenshot(operator, "onboarding-0-owners");
      owner = await acceptInvitation(
        link,
        "ana@tutoring.example",
        "ana's long passphrase",
        "onboarding-0-owner-operate",
      );
    },
  );

  it(
    "Google: add, consent, pick calendars and set services and hours, save; the host offers time",
    { timeout: 120_000 },
    async () => {
      const b = BUSINESSES.google;
      await addAndConnect(b);
      // The calendars listed are the account's, read with the stored grant.
      await owner.getByLabel("owner@example.com (main)").check();
      await owner.getByLabel("owner@example.com", { exact: true }).check();
      await owner.getByLabel("Name (service 1)").fill("Maths lesson");
      await owner.getByLabel("Length in minutes (service 1)").fill("60");
      await owner.getByLabel("Approver e-mail").fill("ana@tutoring.example");
      await owner.getByLabel("Bookings are confirmed at once").check();
      await screenshot(owner, `onboarding-${b.provider}-3-setup`);
      await saveSetup(b);
      expect(await gw.runtime.syncCalendarNow(b.id)).toBe(true);
      await offersTime(b);
    },
  );

  it(
    "Microsoft: add, consent, pick the calendar, set services and hours, save; the host offers time",
    { timeout: 120_000 },
    async () => {
      const b = BUSINESSES.microsoft;
      await addAndConnect(b);
      await owner.getByLabel("Calendar (main)").check();
      await owner.getByLabel("Calendar", { exact: true }).check();
      await owner.getByLabel("Name (service 1)").fill("Physiotherapy session");
      await owner.getByLabel("Length in minutes (service 1)").fill("45");
      await owner.getByLabel("Approver e-mail").fill("ben@physio.example");
      await owner.getByLabel("Opens (Saturday)").fill("10:00");
      await owner.getByLabel("Closes (Saturday)").fill("13:00");
      await owner.getByLabel("Bookings are confirmed at once").check();
      await screenshot(owner, `onboarding-${b.provider}-3-setup`);
      await saveSetup(b);
      expect(await gw.runtime.syncCalendarNow(b.id)).toBe(true);
      await offersTime(b);
    },
  );

  it(
    "Square: add, consent, pick the location and services, save; the host offers time",
    { timeout: 120_000 },
    async () => {
      const b = BUSINESSES.square;
      await addAndConnect(b);
      // Locations, team and bookable services come from the seller's Square account.
      const main = (await owner.textContent("main")) ?? "";
      expect(main).toContain("Avery Chen");
      expect(main).not.toContain("Retired");
      await owner.getByLabel("Maple Street (America/Toronto)").check();
      await owner.getByLabel("Haircut — Regular (60 min)").check();
      await owner.getByLabel("Bookings are confirmed at once").check();
      await screenshot(owner, `onboarding-${b.provider}-3-setup`);
      await saveSetup(b);
      expect(square.requestsTo("GET", `/v2/locations/${SQUARE_LOCATION_ID}`).length).toBeGreaterThan(0);
      await offersTime(b, SQUARE_HAIRCUT);
    },
  );

  it(
    "CalDAV: add, a wrong password is refused, the right one lists the calendars, save; the host offers time",
    { timeout: 120_000 },
    async () => {
      const b = CALDAV;
      await owner.goto(`${gw.origin}/`);
      await owner.getByRole("link", { name: "Add a business" }).click();
      await expect.poll(() => h1(owner), NAV).toBe("Add a business");
      await owner.getByLabel("Business name").fill(b.name);
      await owner.getByLabel("Host id").fill(b.id);
      await owner.getByLabel("Time zone").fill(b.timezone);
      await owner.getByLabel(b.source, { exact: true }).check();
      await owner.getByRole("button", { name: "Continue" }).click();
      await owner.waitForURL(`${gw.origin}/console/hosts/${b.id}/caldav`, NAV);
      await owner.getByLabel("CalDAV server URL").fill(caldavUrl);
      await owner.getByLabel("Username").fill(CALDAV_USER);
      await owner.getByLabel("Password", { exact: true }).fill("not-the-password");
      await owner.getByRole("button", { name: "Connect", exact: true }).click();
      await owner.waitForSelector("#error-summary", NAV);
      expect(await owner.textContent("main")).not.toContain("not-the-password");
      await screenshot(owner, "onboarding-caldav-1-wrong-password");
      await owner.getByLabel("Password", { exact: true }).fill(CALDAV_PASSWORD);
      await owner.getByRole("button", { name: "Connect", exact: true }).click();
      await owner.waitForURL(`${gw.origin}/console/hosts/${b.id}/setup`, NAV);
      expect(await owner.locator("[role=alert]").count()).toBe(0);
      // The calendars are the account's on the server, found by CalDAV discovery through the proxy.
      await owner.locator(`input[name=read][value="${xandikos.defaultCalendar}"]`).check();
      await owner.locator(`input[name=write][value="${xandikos.defaultCalendar}"]`).check();
      await owner.getByLabel("Name (service 1)").fill("Portrait session");
      await owner.getByLabel("Length in minutes (service 1)").fill("30");
      await owner.getByLabel("Approver e-mail").fill(CALDAV_USER);
      await owner.getByLabel("Bookings are confirmed at once").check();
      await screenshot(owner, "onboarding-caldav-3-setup");
      await saveSetup(b);
      expect(await gw.runtime.syncCalendarNow(b.id)).toBe(true);
      await offersTime(b);
    },
  );

  it(
    "a second owner sees none of the first owner's hosts and cannot open their settings",
    { timeout: 60_000 },
    async () => {
      const link = await invite("bo@harbour.example");
      const other = await acceptInvitation(link, "bo@harbour.example", "bo's other passphrase");
      const main = (await other.textContent("main")) ?? "";
      for (const b of Object.values(BUSINESSES)) {
        expect(main).not.toContain(b.name);
        expect(main).not.toContain(b.id);
      }
      await screenshot(other, "onboarding-5-other-owner-operate");
      for (const b of Object.values(BUSINESSES)) {
        const res = await other.goto(`${gw.origin}/console/hosts/${b.id}/settings`);
        expect(res?.status()).toBe(404);
        expect(await h1(other)).toBe("Not found");
      }
      // The first owner's own settings page is theirs.
      const own = await owner.goto(`${gw.origin}/console/hosts/${BUSINESSES.google.id}/settings`);
      expect(own?.status()).toBe(200);
    },
  );

  it(
    "Google refuses the refresh: the host needs reconnection, its time is refused, Operate says so",
    { timeout: 120_000 },
    async () => {
      const b = BUSINESSES.google;
      // The access token stops working and the refresh token has been revoked at Google.
      googleApi.expireTokens();
      standins.google.failNextToken({
        status: 400,
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          error: "invalid_grant",
          error_description: "Token has been expired or revoked.",
        }),
      });
      await gw.runtime.syncCalendarNow(b.id);
      const agent = newAgent(gw);
      const host = await discover(agent, gw, b.id);
      const now = gw.clock.now();
      await expect
        .poll(async () => {
          const r = await agent.client.availability(host, {
            service_id: host.document.services[0]!.id,
            window: {
              start: formatInstant(now + 2 * DAY_MS, b.timezone),
              end: formatInstant(now + 9 * DAY_MS, b.timezone),
            },
            limit: 10,
          });
          return r.ok ? "offered" : refusalOf(r).reason;
        }, NAV)
        .toBe("host_needs_reconnection");
      const r = await agent.client.availability(host, {
        service_id: host.document.services[0]!.id,
        window: {
          start: formatInstant(now + 2 * DAY_MS, b.timezone),
          end: formatInstant(now + 9 * DAY_MS, b.timezone),
        },
      });
      const refusal = refusalOf(r);
      expect(refusal.status).toBe(503);
      expect(refusal.message).toMatch(/reconnect/i);

      await owner.goto(`${gw.origin}/`);
      const row = owner.locator("section[aria-labelledby=hosts-h] tr", { hasText: b.id });
      await expect.poll(() => row.locator("td").first().textContent(), NAV).toBe("needs reconnection");
      await screenshot(owner, "onboarding-6-needs-reconnection");
    },
  );

  it(
    "Disconnect through its link and confirmation: the host leaves discovery",
    { timeout: 60_000 },
    async () => {
      const b = BUSINESSES.microsoft;
      await owner.goto(`${gw.origin}/`);
      await owner.getByRole("link", { name: `Disconnect ${b.name}` }).click();
      await expect.poll(() => h1(owner), NAV).toBe(`Disconnect ${b.name}?`);
      await screenshot(owner, "onboarding-7-disconnect-confirm");
      await owner.getByRole("button", { name: `Disconnect ${b.name}` }).click();
      await expect.poll(() => h1(owner), NAV).toBe("Operate");
      expect(await owner.locator("p.flash[role=status]").textContent()).toContain(b.name);
      await screenshot(owner, "onboarding-7-disconnected");
      const ids = await discoveryIds();
      expect(ids).not.toContain(`/hosts/${b.id}/scheduling.json`);
      expect(ids).toContain(`/hosts/${BUSINESSES.square.id}/scheduling.json`);
      expect((await fetch(`${gw.origin}/hosts/${b.id}/scheduling.json`)).status).toBe(404);
    },
  );
});
