/**
 * The refresher against nock-shaped token endpoints of Square, Google and Microsoft
 * (fixtures/<provider>/oauth-*.json, sources in SOURCES.md): before expiry, single flight,
 * Microsoft's rotated refresh token kept, invalid_grant is unauthorized, 5xx is unavailable and
 * tried again, and no token or secret in any log line or error.
 */
import { randomBytes } from "node:crypto";
import nock from "nock";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parseKeyRing } from "../../../src/gateway/credentials/key-ring.js";
import type { TokenRecord } from "../../../src/gateway/credentials/record.js";
import { createTokenProvider, TokenUnavailableError } from "../../../src/gateway/credentials/refresher.js";
import { MemorySealedStore } from "../../../src/gateway/credentials/store.js";
import { TokenVault } from "../../../src/gateway/credentials/vault.js";
import { readFixtureJson } from "../../support/fixtures.js";

const NOW = Date.parse("2026-12-03T07:00:00Z");
const SECRET = "CLIENT-SECRET-never-logged";
const OLD_ACCESS = "OLD-ACCESS-never-logged";
const REFRESH = "REFRESH-TOKEN-never-logged";

function setup(record: Partial<TokenRecord> & Pick<TokenRecord, "provider" | "tokenEndpoint">) {
  const ring = parseKeyRing(`k1:${randomBytes(32).toString("base64")}`);
  if (!ring.ok) throw new Error(ring.error);
  const vault = new TokenVault(ring.value, new MemorySealedStore());
  const lines: string[] = [];
  const log = (level: string) => (message: string, fields?: Readonly<Record<string, unknown>>) =>
    lines.push(JSON.stringify({ level, message, ...fields }));
  let now = NOW;
  const provider = createTokenProvider({
    hostId: "salon",
    vault,
    client: { clientId: "client-123", clientSecret: SECRET },
    clock: { now: () => now },
    logger: { info: log("info"), warn: log("warn"), error: log("error") },
  });
  const full: TokenRecord = {
    accessToken: OLD_ACCESS,
    refreshToken: REFRESH,
    expiresAt: NOW + 3_600_000,
    ...record,
  };
  return {
    vault,
    provider,
    lines,
    put: () => vault.put("salon", full),
    advance: (ms: number) => {
      now += ms;
    },
  };
}

const noSecrets = (text: string) => {
  for (const s of [SECRET, OLD_ACCESS, REFRESH, "TEST-REFRESHED", "TEST-ROTATED"])
    expect(text).not.toContain(s);
};

beforeEach(() => {
  nock.disableNetConnect();
});
afterEach(() => {
  const pending = nock.pendingMocks();
  nock.cleanAll();
  nock.enableNetConnect();
  expect(pending, "every expected request was made").toEqual([]);
});

describe("Google (oauth4webapi, form-encoded RFC 6749 §6)", () => {
  const endpoint = "https://oauth2.googleapis.com/token";

  it("uses the stored token while fresh, refreshes within the margin, and stores the result", async () => {
    const t = setup({ provider: "google", tokenEndpoint: endpoint });
    await t.put();
    expect(await t.provider.accessToken()).toBe(OLD_ACCESS);
    t.advance(56 * 60_000); // 4 minutes left: inside the 5-minute margin
    let body = "";
    nock("https://oauth2.googleapis.com")
      .post("/token", (b: Record<string, string>) => {
        body = JSON.stringify(b);
        return (
          b["grant_type"] === "refresh_token" &&
          b["refresh_token"] === REFRESH &&
          b["client_id"] === "client-123" &&
          b["client_secret"] === SECRET
        );
      })
      .reply(200, readFixtureJson("google/oauth-refresh-granted.json"));
    expect(await t.provider.accessToken()).toBe("ya29.TEST-REFRESHED-google-access");
    expect(body).toContain("refresh_token");
    const stored = await t.vault.get("salon");
    expect(stored?.accessToken).toBe("ya29.TEST-REFRESHED-google-access");
    expect(stored?.refreshToken).toBe(REFRESH); // Google sent none: the old one stays
    expect(stored?.expiresAt).toBe(NOW + 56 * 60_000 + 3599_000);
    noSecrets(t.lines.join("\n"));
  });

  it("shares one refresh among concurrent callers", async () => {
    const t = setup({ provider: "google", tokenEndpoint: endpoint, expiresAt: NOW - 1 });
    await t.put();
    const scope = nock("https://oauth2.googleapis.com")
      .post("/token")
      .delay(50)
      .once()
      .reply(200, readFixtureJson("google/oauth-refresh-granted.json"));
    const got = await Promise.all(Array.from({ length: 8 }, () => t.provider.accessToken()));
    expect(new Set(got)).toEqual(new Set(["ya29.TEST-REFRESHED-google-access"]));
    expect(scope.isDone()).toBe(true);
  });

  it("refreshes once more when the upstream refused the token (invalidate), and only for that token", async () => {
    const t = setup({ provider: "google", tokenEndpoint: endpoint });
    await t.put();
    t.provider.invalidate("some other token");
    expect(await t.provider.accessToken()).toBe(OLD_ACCESS);
    nock("https://oauth2.googleapis.com")
      .post("/token")
      .reply(200, readFixtureJson("google/oauth-refresh-granted.json"));
    t.provider.invalidate(OLD_ACCESS);
    expect(await t.provider.accessToken()).toBe("ya29.TEST-REFRESHED-google-access");
  });

  it("invalid_grant is unauthorized, logged loudly once, and not retried until a new grant is put", async () => {
    const t = setup({ provider: "google", tokenEndpoint: endpoint, expiresAt: NOW - 1 });
    await t.put();
    nock("https://oauth2.googleapis.com")
      .post("/token")
      .once()
      .reply(400, readFixtureJson("google/oauth-error-invalid-grant.json"));
    const first = await t.provider.accessToken().catch((e: unknown) => e);
    expect(first).toBeInstanceOf(TokenUnavailableError);
    expect((first as TokenUnavailableError).code).toBe("unauthorized");
    expect((first as Error).message).toMatch(/invalid_grant.*reconnect/);
    // No second request (nock would refuse it), and no second loud line.
    await expect(t.provider.accessToken()).rejects.toMatchObject({ code: "unauthorized" });
    const loud = t.lines.filter((l) => l.includes('"level":"error"'));
    expect(loud).toHaveLength(1);
    expect(loud[0]).toContain('"oauth_error":"invalid_grant"');
    expect(loud[0]).not.toContain("expired or revoked"); // the upstream's description is not copied
    noSecrets(t.lines.join("\n") + String(first));
    // The operator reconnects: a new grant in the vault is used at once.
    await t.vault.put("salon", {
      provider: "google",
      tokenEndpoint: endpoint,
      accessToken: "NEW-ACCESS",
      refreshToken: "NEW-REFRESH",
      expiresAt: NOW + 3_600_000,
    });
    expect(await t.provider.accessToken()).toBe("NEW-ACCESS");
  });

  it("a 5xx is unavailable (the expired token is not handed out) and the next call tries again", async () => {
    const t = setup({ provider: "google", tokenEndpoint: endpoint, expiresAt: NOW - 1 });
    await t.put();
    nock("https://oauth2.googleapis.com").post("/token").reply(503, "<html>busy</html>");
    await expect(t.provider.accessToken()).rejects.toMatchObject({ code: "unavailable" });
    nock("https://oauth2.googleapis.com")
      .post("/token")
      .reply(200, readFixtureJson("google/oauth-refresh-granted.json"));
    expect(await t.provider.accessToken()).toBe("ya29.TEST-REFRESHED-google-access");
    expect(t.lines.some((l) => l.includes('"level":"warn"') && l.includes('"status":503'))).toBe(true);
    noSecrets(t.lines.join("\n"));
  });

  it("an answer past the byte cap is unavailable, however well-formed (nothing past the cap is read)", async () => {
    const t = setup({ provider: "google", tokenEndpoint: endpoint, expiresAt: NOW - 1 });
    await t.put();
    nock("https://oauth2.googleapis.com")
      .post("/token")
      .reply(200, {
        ...readFixtureJson<object>("google/oauth-refresh-granted.json"),
        pad: "x".repeat(100_000),
      });
    await expect(t.provider.accessToken()).rejects.toMatchObject({ code: "unavailable" });
    expect((await t.vault.get("salon"))?.accessToken).toBe(OLD_ACCESS);
  });

  it("a 5xx before expiry keeps serving the still-valid token", async () => {
    const t = setup({ provider: "google", tokenEndpoint: endpoint, expiresAt: NOW + 60_000 });
    await t.put();
    nock("https://oauth2.googleapis.com").post("/token").reply(500, { error: "internal_failure" });
    expect(await t.provider.accessToken()).toBe(OLD_ACCESS);
  });
});

describe("Microsoft identity platform v2.0", () => {
  const endpoint = "https://login.microsoftonline.com/contoso.example/oauth2/v2.0/token";

  it("stores the rotated refresh token and asks for the granted scopes without the OpenID ones", async () => {
    const t = setup({
      provider: "microsoft",
      tokenEndpoint: endpoint,
      expiresAt: NOW - 1,
      scope: "openid offline_access https://graph.microsoft.com/Calendars.ReadWrite",
    });
    await t.put();
    let scope: string | undefined;
    nock("https://login.microsoftonline.com")
      .post("/contoso.example/oauth2/v2.0/token", (b: Record<string, string>) => {
        scope = b["scope"];
        return b["grant_type"] === "refresh_token" && b["refresh_token"] === REFRESH;
      })
      .reply(200, readFixtureJson("microsoft/oauth-refresh-granted.json"));
    expect(await t.provider.accessToken()).toContain("TEST-REFRESHED-graph-access");
    expect(scope).toBe("offline_access https://graph.microsoft.com/Calendars.ReadWrite");
    const stored = await t.vault.get("salon");
    expect(stored?.refreshToken).toBe("0.TEST-ROTATED-microsoft-refresh-token");
    // The next refresh spends the rotated one.
    t.advance(3599_000);
    nock("https://login.microsoftonline.com")
      .post(
        "/contoso.example/oauth2/v2.0/token",
        (b: Record<string, string>) => b["refresh_token"] === "0.TEST-ROTATED-microsoft-refresh-token",
      )
      .reply(400, readFixtureJson("microsoft/oauth-error-invalid-grant.json"));
    await expect(t.provider.accessToken()).rejects.toMatchObject({ code: "unauthorized" });
    noSecrets(t.lines.join("\n"));
    expect(t.lines.join("\n")).not.toContain("AADSTS");
  });
});

describe("Square ObtainToken (JSON body, by hand)", () => {
  const endpoint = "https://connect.squareupsandbox.com/oauth2/token";

  it("posts the documented JSON body and reads expires_at", async () => {
    const t = setup({ provider: "square", tokenEndpoint: endpoint, expiresAt: NOW - 1 });
    await t.put();
    nock("https://connect.squareupsandbox.com", { reqheaders: { "content-type": "application/json" } })
      .post("/oauth2/token", {
        client_id: "client-123",
        client_secret: SECRET,
        grant_type: "refresh_token",
        refresh_token: REFRESH,
      })
      .reply(200, readFixtureJson("square/oauth-obtain-token-refresh.json"));
    expect(await t.provider.accessToken()).toBe("EAAAl-TEST-REFRESHED-square-access");
    expect((await t.vault.get("salon"))?.expiresAt).toBe(Date.parse("2027-01-02T07:00:00Z"));
  });

  it("an invalid refresh token is unauthorized", async () => {
    const t = setup({ provider: "square", tokenEndpoint: endpoint, expiresAt: NOW - 1 });
    await t.put();
    nock("https://connect.squareupsandbox.com")
      .post("/oauth2/token")
      .reply(401, readFixtureJson("square/oauth-error-invalid-refresh-token.json"));
    await expect(t.provider.accessToken()).rejects.toMatchObject({ code: "unauthorized" });
    expect(t.lines.find((l) => l.includes('"level":"error"'))).toContain("service.not_authorized");
  });

  it("an answer past the byte cap is unavailable, however well-formed", async () => {
    const t = setup({ provider: "square", tokenEndpoint: endpoint, expiresAt: NOW - 1 });
    await t.put();
    nock("https://connect.squareupsandbox.com")
      .post("/oauth2/token")
      .reply(200, {
        ...readFixtureJson<object>("square/oauth-obtain-token-refresh.json"),
        pad: "x".repeat(100_000),
      });
    await expect(t.provider.accessToken()).rejects.toMatchObject({ code: "unavailable" });
    expect((await t.vault.get("salon"))?.accessToken).toBe(OLD_ACCESS);
  });

  it("a network failure is unavailable", async () => {
    const t = setup({ provider: "square", tokenEndpoint: endpoint, expiresAt: NOW - 1 });
    await t.put();
    nock("https://connect.squareupsandbox.com").post("/oauth2/token").replyWithError({ code: "ECONNRESET" });
    await expect(t.provider.accessToken()).rejects.toMatchObject({ code: "unavailable" });
  });
});

describe("a host without a record", () => {
  it("is unauthorized, saying how to connect it", async () => {
    const t = setup({ provider: "google", tokenEndpoint: "https://oauth2.googleapis.com/token" });
    await expect(t.provider.accessToken()).rejects.toThrow(/no token record.*credentials set/);
  });
});
