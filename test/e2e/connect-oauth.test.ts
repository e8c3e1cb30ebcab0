/**
 * Connect: each OAuth flow from the owner's first click, in a real
 * headless Chromium, against a real gateway on http://127.0.0.1 and local stand-ins of Google,
 * Microsoft identity platform v2.0 and Square (test/support/oauth-standins) that answer the
 * real endpoints' paths and shapes. The gateway keeps its production endpoints: the browser's
 * requests to https://accounts.google.com etc. and the gateway's token calls are routed to the
 * stand-ins' sockets (oauth-standins/routing.ts), so the return to the gateway is a genuine
 * cross-site navigation and the SameSite=Strict bounce page (connect/wiring.ts) is exercised.
 *
 * Per provider: Operate lists the vault host with a Connect link → consent page → Allow →
 * back through the bounce → Operate shows "connected", the grant sealed at rest (no plaintext
 * token in the file). Also: a denied consent is explained and stores nothing; a tampered state
 * is refused and stores nothing; a replayed callback is refused; a failed token call stores
 * nothing. Screenshots go to test-artifacts/screenshots/ (git-ignored).
 *
 * Appending the next step after merge ("continue to setup, save, see the host in
 * /.well-known/scheduling.json with availability"): PROVIDERS holds each host and stand-in;
 * `connectThroughConsent` leaves the page on Operate after the grant is stored; `googleApi` and
 * `graphApi` (oauth-standins/api-fakes.ts) answer the calendar APIs for the stored grants, and
 * Square's API is test/e2e/support/fake-square.ts behind the host's `baseUrl` (give the Square
 * stand-in `fixedAccessToken` with that fake's token).
 */
import { createHash, randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, BrowserContext, Page, Response } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EMBEDDED_CALENDAR_CONFIG } from "../../src/booking/hosts/index.js";
import { FileSealedStore } from "../../src/gateway/credentials/file-store.js";
import { parseKeyRing } from "../../src/gateway/credentials/key-ring.js";
import { TokenVault } from "../../src/gateway/credentials/vault.js";
import { launchChromium } from "../support/chromium.js";
import {
  installRewritingFetch,
  originMap,
  routeBrowserToStandins,
  startGoogleStandin,
  startMicrosoftStandin,
  startGoogleCalendarFake,
  startGraphCalendarFake,
  startSquareStandin,
  type CalendarApiFake,
  type OAuthStandin,
} from "../support/oauth-standins/index.js";
import { screenshot } from "../support/screenshots.js";
import { startGateway, type E2eGateway } from "./support/gateway.js";

type Provider = "google" | "microsoft" | "square";

interface ProviderCase {
  readonly provider: Provider;
  readonly hostId: string;
  readonly hostName: string;
  /** As the Operate page names the platform (console/pages.ts). */
  readonly platform: string;
  standin: OAuthStandin;
}

const ENV = {
  GOOGLE_CLIENT_ID: "standin-google-client.apps.googleusercontent.com",
  GOOGLE_CLIENT_SECRET: "GOCSPX-standin-secret",
  MICROSOFT_CLIENT_ID: "00000000-0000-0000-0000-0000000c11e7",
  MICROSOFT_CLIENT_SECRET: "ms~standin-secret",
  SQUARE_CLIENT_ID: "sq0idp-standin-client",
  SQUARE_CLIENT_SECRET: "sq0csp-standin-secret",
};
const TENANT = "contoso.onmicrosoft.com";

const PROVIDERS: Record<Provider, ProviderCase> = {
  google: {
    provider: "google",
    hostId: "ana-google",
    hostName: "Ana Tutoring",
    platform: "Google Calendar",
    standin: undefined as never,
  },
  microsoft: {
    provider: "microsoft",
    hostId: "ben-microsoft",
    hostName: "Ben Physio",
    platform: "Microsoft 365",
    standin: undefined as never,
  },
  square: {
    provider: "square",
    hostId: "maple-square",
    hostName: "Maple Street Studio",
    platform: "Square",
    standin: undefined as never,
  },
};

function vaultSettings(p: Provider): Record<string, unknown> {
  const up = p.toUpperCase();
  return { credentials: "vault", clientIdEnv: `${up}_CLIENT_ID`, clientSecretEnv: `${up}_CLIENT_SECRET` };
}

function hostsConfig(): unknown {
  const [calendar] = structuredClone(EMBEDDED_CALENDAR_CONFIG).hosts as unknown as Record<string, unknown>[];
  return {
    hosts: [
      {
        ...calendar,
        id: PROVIDERS.google.hostId,
        name: PROVIDERS.google.hostName,
        connector: { type: "google", settings: vaultSettings("google") },
      },
      {
        ...calendar,
        id: PROVIDERS.microsoft.hostId,
        name: PROVIDERS.microsoft.hostName,
        connector: { type: "microsoft", settings: vaultSettings("microsoft") },
      },
      {
        id: PROVIDERS.square.hostId,
        name: PROVIDERS.square.hostName,
        kind: "business",
        timezone: "America/Toronto",
        connector: {
          type: "square",
          settings: {
            ...vaultSettings("square"),
            environment: "production",
            locationId: "L7M2SEJXJ3TQE",
            version: "2026-08-20",
            paymentRequirement: "none",
          },
        },
        policies: { confirmation: "instant", retention: "P365D" },
        services: [],
      },
    ],
  };
}

let gw: E2eGateway;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let vault: TokenVault;
let vaultDir: string;
let restoreFetch: (() => void) | undefined;
/** The calendar APIs behind the Google and Microsoft grants, for the setup step appended later. */
let googleApi: CalendarApiFake;
let graphApi: CalendarApiFake;

const sealedFile = (hostId: string) => join(vaultDir, "credentials", `${hostId}.json`);
const sealedAtRest = (hostId: string) =>
  existsSync(sealedFile(hostId)) ? readFileSync(sealedFile(hostId), "utf8") : undefined;

beforeAll(async () => {
  // The redirect URIs name the gateway's port, known only once it listens: registered below.
  const clients = { google: [] as string[], microsoft: [] as string[], square: [] as string[] };
  PROVIDERS.google.standin = await startGoogleStandin({
    clientId: ENV.GOOGLE_CLIENT_ID,
    clientSecret: ENV.GOOGLE_CLIENT_SECRET,
    redirectUris: clients.google,
  });
  PROVIDERS.microsoft.standin = await startMicrosoftStandin({
    clientId: ENV.MICROSOFT_CLIENT_ID,
    clientSecret: ENV.MICROSOFT_CLIENT_SECRET,
    redirectUris: clients.microsoft,
    tenant: TENANT,
  });
  PROVIDERS.square.standin = await startSquareStandin({
    clientId: ENV.SQUARE_CLIENT_ID,
    clientSecret: ENV.SQUARE_CLIENT_SECRET,
    redirectUris: clients.square,
  });
  googleApi = await startGoogleCalendarFake(PROVIDERS.google.standin);
  graphApi = await startGraphCalendarFake(PROVIDERS.microsoft.standin);
  const map = originMap(
    PROVIDERS.google.standin,
    PROVIDERS.microsoft.standin,
    PROVIDERS.square.standin,
    googleApi,
    graphApi,
  );
  // Before the gateway starts: Connect keeps the fetch it finds.
  restoreFetch = installRewritingFetch(map);

  const ring = parseKeyRing(`k1:${randomBytes(32).toString("base64")}`);
  if (!ring.ok) throw new Error(ring.error);
  vaultDir = mkdtempSync(join(tmpdir(), "e2e-connect-vault-"));
  vault = new TokenVault(ring.value, new FileSealedStore(vaultDir));
  const redisUrl = process.env["REDIS_URL"];
  gw = await startGateway({
    config: hostsConfig(),
    ...(redisUrl !== undefined && {
      redisUrl,
      redisKeyPrefix: `test:e2e-connect:${randomBytes(4).toString("hex")}:`,
    }),
    runtime: {
      workers: false,
      credentials: { vault, env: ENV },
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
  context = await browser.newContext();
  await routeBrowserToStandins(context, map);
  page = await context.newPage();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await gw?.close();
  restoreFetch?.();
  await Promise.all([
    ...Object.values(PROVIDERS).map((p) => p.standin?.close()),
    googleApi?.close(),
    graphApi?.close(),
  ]);
  if (vaultDir !== undefined) rmSync(vaultDir, { recursive: true, force: true });
});

const connectLink = (c: ProviderCase, verb = "Connect") =>
  page.locator(`a[aria-label="${verb} ${c.hostName} with ${c.platform}"]`);
const grantCell = (c: ProviderCase) =>
  page.locator("section[aria-labelledby=connect-h] tr", { hasText: c.hostId }).locator("td").nth(1);

/**
 * Every hit on a provider's callback during `run`, in order. The callback itself answers a 303
 * or a failure page (4xx/5xx), so a 200 there is the bounce page (its body cannot be read: its
 * refresh has already navigated on).
 */
async function watchCallbacks(
  provider: Provider,
  run: () => Promise<void>,
): Promise<{ url: string; status: number; bounce: boolean }[]> {
  const hits: { url: string; status: number; bounce: boolean }[] = [];
  const seen = (r: Response) => {
    if (!r.url().startsWith(`${gw.origin}/connect/${provider}/callback`)) return;
    const h = r.headers();
    hits.push({
      url: r.url(),
      status: r.status(),
      bounce:
        r.status() === 200 && h["referrer-policy"] === "no-referrer" && h["cache-control"] === "no-store",
    });
  };
  page.on("response", seen);
  try {
    await run();
    await page.waitForLoadState("load");
  } finally {
    page.off("response", seen);
  }
  return hits;
}

/** From Operate: Connect → the provider's consent page (screenshot) → the owner's choice. */
async function throughConsent(c: ProviderCase, choice: "Allow" | "Deny", verb = "Connect"): Promise<void> {
  await connectLink(c, verb).click();
  await page.waitForSelector("text=wants to access your", { timeout: 10_000 });
  expect(new URL(page.url()).origin).toBe(c.standin.realOrigins[0]);
  await screenshot(page, `consent-${c.provider}`);
  await page.getByRole("button", { name: choice }).click();
}

/** The whole connection; leaves the page on Operate with the host shown connected. */
async function connectThroughConsent(c: ProviderCase): Promise<string> {
  const hits = await watchCallbacks(c.provider, async () => {
    await throughConsent(c, "Allow");
    await expect.poll(() => page.textContent("h1"), { timeout: 10_000 }).toBe("Operate");
  });
  // Came back cross-site without the SameSite=Strict cookie: the bounce page, then the real callback.
  expect(hits.length).toBe(2);
  expect(hits[0]).toMatchObject({ status: 200, bounce: true });
  expect(hits.at(-1)).toMatchObject({ status: 303, bounce: false });
  expect(await grantCell(c).textContent()).toBe("connected");
  return hits[0]!.url;
}

function expectSealedGrant(c: ProviderCase): void {
  const grant = c.standin.grants.at(-1);
  expect(grant).toBeDefined();
  const atRest = sealedAtRest(c.hostId);
  expect(atRest).toBeDefined();
  expect(atRest).not.toContain(grant!.accessToken);
  if (grant!.refreshToken !== undefined) expect(atRest).not.toContain(grant!.refreshToken);
}

describe("Connect in a real browser against stand-in authorization servers", () => {
  it("signs in; Operate lists the three vault hosts, none connected", { timeout: 30_000 }, async () => {
    await page.goto(`${gw.origin}/`);
    await page.getByLabel("Operator credential").fill(gw.runtime.operatorToken);
    await page.click("button[type=submit]");
    await expect.poll(() => page.textContent("h1")).toBe("Operate");
    for (const c of Object.values(PROVIDERS)) {
      expect(await connectLink(c).count()).toBe(1);
      expect(await grantCell(c).textContent()).toBe("not connected");
    }
    await screenshot(page, "operate-before-connect");
  });

  it(
    "Google: consent, Allow, grant sealed, Operate shows connected; the callback replayed is refused",
    { timeout: 60_000 },
    async () => {
      const c = PROVIDERS.google;
      const callback = await connectThroughConsent(c);
      await screenshot(page, "operate-google-connected");

      const auth = c.standin.received.find((r) => r.path === "/o/oauth2/v2/auth")!;
      expect(auth.query).toMatchObject({
        client_id: ENV.GOOGLE_CLIENT_ID,
        redirect_uri: `${gw.origin}/connect/google/callback`,
        response_type: "code",
        access_type: "offline",
        prompt: "consent",
        code_challenge_method: "S256",
      });
      expect(auth.query["scope"]!.split(" ")).toEqual(
        expect.arrayContaining([
          "https://www.googleapis.com/auth/calendar.events",
          "https://www.googleapis.com/auth/calendar.readonly",
        ]),
      );
      const token = c.standin.received.find((r) => r.path === "/token")!;
      expect(token.body).toMatchObject({
        grant_type: "authorization_code",
        client_id: ENV.GOOGLE_CLIENT_ID,
        client_secret: ENV.GOOGLE_CLIENT_SECRET,
      });
      expect(typeof token.body?.["code_verifier"]).toBe("string");

      expectSealedGrant(c);
      const stored = await vault.get(c.hostId);
      expect(stored).toMatchObject({
        provider: "google",
        accessToken: c.standin.grants[0]!.accessToken,
        refreshToken: c.standin.grants[0]!.refreshToken,
        tokenEndpoint: "https://oauth2.googleapis.com/token",
      });

      // The same callback URL again (the browser's history, a leaked link): the state is spent.
      const before = sealedAtRest(c.hostId);
      const tokenCalls = c.standin.received.filter((r) => r.path === "/token").length;
      await page.goto(callback);
      await expect.poll(() => page.textContent("h1")).toBe("Connection not completed");
      expect(await page.textContent("[role=alert]")).toContain("unknown or was already used");
      await screenshot(page, "connect-google-replayed-refused");
      expect(sealedAtRest(c.hostId)).toBe(before);
      expect(c.standin.received.filter((r) => r.path === "/token").length).toBe(tokenCalls);
    },
  );

  it(
    "Microsoft: Deny is explained and stores nothing; then Allow connects",
    { timeout: 60_000 },
    async () => {
      const c = PROVIDERS.microsoft;
      await page.goto(`${gw.origin}/`);
      await throughConsent(c, "Deny");
      await expect.poll(() => page.textContent("h1"), { timeout: 10_000 }).toBe("Connection not completed");
      expect(await page.textContent("[role=alert]")).toBe(
        "Microsoft access was not granted, so nothing was connected. To connect, start again and choose Allow.",
      );
      // The provider's free text (AADSTS65004 …) is not echoed.
      expect(await page.textContent("main")).not.toContain("AADSTS");
      await screenshot(page, "connect-microsoft-denied");
      expect(sealedAtRest(c.hostId)).toBeUndefined();
      expect(c.standin.received.some((r) => r.path.endsWith("/token"))).toBe(false);

      await page.goto(`${gw.origin}/`);
      await connectThroughConsent(c);
      const auth = c.standin.received.find((r) => r.path === `/${TENANT}/oauth2/v2.0/authorize`)!;
      expect(auth.query).toMatchObject({
        client_id: ENV.MICROSOFT_CLIENT_ID,
        response_type: "code",
        code_challenge_method: "S256",
      });
      expect(auth.query["scope"]!.split(" ")).toEqual(
        expect.arrayContaining(["offline_access", "Calendars.ReadWrite"]),
      );
      expectSealedGrant(c);
      expect(await vault.get(c.hostId)).toMatchObject({
        provider: "microsoft",
        refreshToken: c.standin.grants[0]!.refreshToken,
      });
    },
  );

  it(
    "Square: a tampered state is refused and stores nothing; the untouched answer then connects",
    { timeout: 60_000 },
    async () => {
      const c = PROVIDERS.square;
      await page.goto(`${gw.origin}/`);
      // Hold the provider's answer in the address bar instead of following it.
      let held: string | undefined;
      const pattern = `${gw.origin}/connect/square/callback**`;
      await page.route(pattern, async (route) => {
        held = route.request().url();
        await route.fulfill({
          status: 200,
          contentType: "text/html",
          body: "<!doctype html><title>held</title>",
        });
      });
      await throughConsent(c, "Allow");
      await expect.poll(() => page.title()).toBe("held");
      await page.unroute(pattern);

      const tampered = new URL(held!);
      const state = tampered.searchParams.get("state")!;
      tampered.searchParams.set("state", `${state.slice(0, -2)}${state.endsWith("AA") ? "BB" : "AA"}`);
      await page.goto(tampered.href);
      await expect.poll(() => page.textContent("h1")).toBe("Connection not completed");
      expect(await page.textContent("[role=alert]")).toContain("unknown or was already used");
      await screenshot(page, "connect-square-tampered-state-refused");
      expect(sealedAtRest(c.hostId)).toBeUndefined();
      expect(c.standin.received.some((r) => r.path === "/oauth2/token")).toBe(false);

      // The real answer still carries the pending state: it completes the grant.
      await page.goto(held!);
      await expect.poll(() => page.textContent("h1")).toBe("Operate");
      expect(await grantCell(c).textContent()).toBe("connected");
      const token = c.standin.received.find((r) => r.path === "/oauth2/token")!;
      expect(token.headers["content-type"]).toMatch(/^application\/json/);
      expect(token.body).toMatchObject({
        client_id: ENV.SQUARE_CLIENT_ID,
        client_secret: ENV.SQUARE_CLIENT_SECRET,
        grant_type: "authorization_code",
      });
      expect(token.body?.["code_verifier"]).toBeUndefined();
      // Square's code flow: no PKCE on the authorization request, its least scopes, the state.
      const auth = c.standin.received.find((r) => r.path === "/oauth2/authorize")!;
      expect(auth.query).toMatchObject({
        client_id: ENV.SQUARE_CLIENT_ID,
        state: new URL(held!).searchParams.get("state"),
        // Production: the seller signs in to the account they mean to connect (Square's best practices).
        session: "false",
      });
      expect(auth.query["code_challenge"]).toBeUndefined();
      expect(auth.query["scope"]!.split(" ")).toEqual(
        expect.arrayContaining([
          "APPOINTMENTS_READ",
          "APPOINTMENTS_WRITE",
          "ITEMS_READ",
          "MERCHANT_PROFILE_READ",
        ]),
      );
      expectSealedGrant(c);
      expect(await vault.get(c.hostId)).toMatchObject({
        provider: "square",
        accessToken: c.standin.grants[0]!.accessToken,
      });
    },
  );

  it("a token endpoint that fails on a reconnection keeps the old grant", { timeout: 60_000 }, async () => {
    const c = PROVIDERS.google;
    await page.goto(`${gw.origin}/`);
    const before = sealedAtRest(c.hostId);
    c.standin.failNextToken({
      status: 500,
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ error: "internal_failure" }),
    });
    await throughConsent(c, "Allow", "Reconnect");
    await expect.poll(() => page.textContent("h1"), { timeout: 10_000 }).toBe("Connection not completed");
    expect(await page.textContent("[role=alert]")).toContain("Connecting Google failed");
    await screenshot(page, "connect-google-token-failed");
    expect(sealedAtRest(c.hostId)).toBe(before);

    await page.goto(`${gw.origin}/`);
    for (const p of Object.values(PROVIDERS)) expect(await grantCell(p).textContent()).toBe("connected");
    await screenshot(page, "operate-all-connected");
  });

  it("the calendar APIs behind the stand-ins take the stored grants and refuse anything else", async () => {
    // What the setup step appended after merge builds on: the stored token reaches the API fakes
    // through the same routing as the gateway's own calls.
    const google = await vault.get(PROVIDERS.google.hostId);
    const ok = await fetch("https://www.googleapis.com/calendar/v3/users/me/calendarList", {
      headers: { authorization: `Bearer ${google!.accessToken}` },
    });
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as { items: unknown[] }).items).toHaveLength(1);
    const refused = await fetch("https://www.googleapis.com/calendar/v3/users/me/calendarList", {
      headers: { authorization: "Bearer ya29.not-issued" },
    });
    expect(refused.status).toBe(401);

    const microsoft = await vault.get(PROVIDERS.microsoft.hostId);
    const delta = await fetch("https://graph.microsoft.com/v1.0/me/calendarView/delta?startDateTime=x", {
      headers: { authorization: `Bearer ${microsoft!.accessToken}` },
    });
    expect(delta.status).toBe(200);
    expect(((await delta.json()) as Record<string, string>)["@odata.deltaLink"]).toMatch(
      /^https:\/\/graph\.microsoft\.com\/v1\.0\/me\/calendarView\/delta\?\$deltatoken=/,
    );
  });
});

/** Drives a stand-in's consent without a browser: the authorization request, then Allow. */
async function codeFor(
  standin: OAuthStandin,
  authorizePath: string,
  query: Record<string, string>,
): Promise<URL> {
  const page = await fetch(`${standin.origin}${authorizePath}?${new URLSearchParams(query).toString()}`);
  expect(page.status).toBe(200);
  const html = await page.text();
  const action = /action="([^"]+)"/.exec(html)![1]!;
  const request = /name="request" value="([^"]+)"/.exec(html)![1]!;
  const allowed = await fetch(`${standin.origin}${action}`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ request, decision: "allow" }).toString(),
    redirect: "manual",
  });
  expect(allowed.status).toBe(302);
  return new URL(allowed.headers.get("location")!);
}

describe("the stand-ins refuse what the real authorization servers refuse", () => {
  const form = (body: Record<string, string>) => ({
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(body).toString(),
  });

  it("Google: an unregistered redirect_uri gets an error page, not a redirect", async () => {
    const res = await fetch(
      `${PROVIDERS.google.standin.origin}/o/oauth2/v2/auth?${new URLSearchParams({
        client_id: ENV.GOOGLE_CLIENT_ID,
        redirect_uri: "https://attacker.example/callback",
        response_type: "code",
        scope: "https://www.googleapis.com/auth/calendar.events",
      }).toString()}`,
      { redirect: "manual" },
    );
    expect(res.status).toBe(400);
    expect(await res.text()).toContain("redirect_uri_mismatch");
  });

  it("Google and Microsoft: a wrong PKCE verifier and a second redemption are invalid_grant", async () => {
    const verifier = randomBytes(32).toString("base64url");
    const challenge = createHash("sha256").update(verifier).digest("base64url");
    for (const c of [PROVIDERS.google, PROVIDERS.microsoft]) {
      const redirectUri = `${gw.origin}/connect/${c.provider}/callback`;
      const [authorizePath, tokenPath, clientId, secret] =
        c.provider === "google"
          ? ["/o/oauth2/v2/auth", "/token", ENV.GOOGLE_CLIENT_ID, ENV.GOOGLE_CLIENT_SECRET]
          : [
              `/${TENANT}/oauth2/v2.0/authorize`,
              `/${TENANT}/oauth2/v2.0/token`,
              ENV.MICROSOFT_CLIENT_ID,
              ENV.MICROSOFT_CLIENT_SECRET,
            ];
      const query = {
        client_id: clientId,
        redirect_uri: redirectUri,
        response_type: "code",
        scope: "offline_access Calendars.ReadWrite",
        state: "s1",
        code_challenge: challenge,
        code_challenge_method: "S256",
        // Google gives a refresh token only for offline access.
        access_type: "offline",
      };
      const body = (code: string, codeVerifier: string) => ({
        grant_type: "authorization_code",
        code,
        redirect_uri: redirectUri,
        client_id: clientId,
        client_secret: secret,
        code_verifier: codeVerifier,
      });

      const wrong = (await codeFor(c.standin, authorizePath, query)).searchParams.get("code")!;
      const refused = await fetch(`${c.standin.origin}${tokenPath}`, form(body(wrong, `${verifier}x`)));
      expect(refused.status).toBe(400);
      expect(await refused.json()).toMatchObject({ error: "invalid_grant" });

      const good = (await codeFor(c.standin, authorizePath, query)).searchParams.get("code")!;
      const first = await fetch(`${c.standin.origin}${tokenPath}`, form(body(good, verifier)));
      expect(first.status).toBe(200);
      const granted = (await first.json()) as Record<string, unknown>;
      expect(granted["token_type"]).toBe("Bearer");
      expect(typeof granted["refresh_token"]).toBe("string");
      const again = await fetch(`${c.standin.origin}${tokenPath}`, form(body(good, verifier)));
      expect(again.status).toBe(400);
      expect(await again.json()).toMatchObject({ error: "invalid_grant" });
    }
  });

  it("Square: a claimed code is refused, and the token call must be JSON", async () => {
    const s = PROVIDERS.square.standin;
    const redirectUri = `${gw.origin}/connect/square/callback`;
    const back = await codeFor(s, "/oauth2/authorize", {
      client_id: ENV.SQUARE_CLIENT_ID,
      scope: "ITEMS_READ",
      session: "false",
      state: "s2",
      redirect_uri: redirectUri,
    });
    expect(back.searchParams.get("response_type")).toBe("code");
    const body = JSON.stringify({
      client_id: ENV.SQUARE_CLIENT_ID,
      client_secret: ENV.SQUARE_CLIENT_SECRET,
      code: back.searchParams.get("code"),
      grant_type: "authorization_code",
      redirect_uri: redirectUri,
    });
    const asForm = await fetch(`${s.origin}/oauth2/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "x=1",
    });
    expect(asForm.status).toBe(400);
    const first = await fetch(`${s.origin}/oauth2/token`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
    });
    const granted = (await first.json()) as Record<string, unknown>;
    expect(granted["token_type"]).toBe("bearer");
    expect(typeof granted["merchant_id"]).toBe("string");
    expect(Number.isNaN(Date.parse(String(granted["expires_at"])))).toBe(false);
    const again = await fetch(`${s.origin}/oauth2/token`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
    });
    expect(again.status).toBe(401);
    expect(await again.json()).toMatchObject({
      message: "Authorization code is already claimed",
      type: "service.not_authorized",
    });
  });
});
