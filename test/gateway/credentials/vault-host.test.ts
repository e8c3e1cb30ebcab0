/**
 * A `credentials: "vault"` Google host end to end through the real connector and the existing
 * health path: events.list answers 401, the refresh answers invalid_grant, and the host turns
 * needs_reconnection (booking/hosts/health.ts), which refuses its time. And a 401 whose refresh
 * succeeds is retried once with the new token, invisibly to the caller.
 */
import { randomBytes } from "node:crypto";
import nock from "nock";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { HostConfig } from "../../../src/booking/api.js";
import { HostHealth } from "../../../src/booking/hosts/health.js";
import { watchConnector } from "../../../src/booking/hosts/watched-connector.js";
import type { Connector } from "../../../src/connectors/port.js";
import { parseKeyRing } from "../../../src/gateway/credentials/key-ring.js";
import { MemorySealedStore } from "../../../src/gateway/credentials/store.js";
import { TokenVault } from "../../../src/gateway/credentials/vault.js";
import { connectorFor, type ConnectorDeps } from "../../../src/gateway/runtime/connectors.js";
import { readFixtureJson } from "../../support/fixtures.js";

const NOW = Date.parse("2026-12-03T07:00:00Z");
const WINDOW = { start: Date.parse("2026-12-07T00:00:00Z"), end: Date.parse("2027-01-07T00:00:00Z") };
const LIST = "/calendar/v3/calendars/alice%40example.com/events";
const SECRET = "GOOGLE-CLIENT-SECRET-never-logged";

async function vaultHost(env: Record<string, string> = { GOOGLE_CLIENT_SECRET: SECRET }) {
  const ring = parseKeyRing(`k1:${randomBytes(32).toString("base64")}`);
  if (!ring.ok) throw new Error(ring.error);
  const vault = new TokenVault(ring.value, new MemorySealedStore());
  await vault.put("salon", {
    provider: "google",
    accessToken: "OLD-ACCESS",
    refreshToken: "REFRESH",
    expiresAt: NOW + 3_600_000,
    tokenEndpoint: "https://oauth2.googleapis.com/token",
  });
  const lines: string[] = [];
  const log = (m: string, f?: Readonly<Record<string, unknown>>) => lines.push(JSON.stringify({ m, ...f }));
  const config = {
    id: "salon",
    name: "Salon",
    kind: "business",
    connector: {
      type: "google",
      settings: { credentials: "vault", clientId: "client-123", clientSecretEnv: "GOOGLE_CLIENT_SECRET" },
    },
  } as unknown as HostConfig;
  const deps = {
    clock: { now: () => NOW },
    syntheticBackend: undefined,
    logger: { info: log, warn: log, error: log },
    credentials: { vault, env },
  } as unknown as ConnectorDeps;
  return { vault, lines, made: connectorFor(config, "/hosts/0", deps) };
}

beforeEach(() => nock.disableNetConnect());
afterEach(() => {
  const pending = nock.pendingMocks();
  nock.cleanAll();
  nock.enableNetConnect();
  expect(pending, "every expected request was made").toEqual([]);
});

describe('a credentials: "vault" Google host', () => {
  it("a 401, then invalid_grant on the refresh: unauthorized, and host health shows needs_reconnection", async () => {
    const { made, lines } = await vaultHost();
    if (!made.ok) throw new Error(made.error.message);
    const health = new HostHealth("salon", { now: () => NOW });
    const connector = watchConnector(made.value, health) as Connector & Required<Pick<Connector, "calendar">>;
    nock("https://www.googleapis.com", { reqheaders: { authorization: "Bearer OLD-ACCESS" } })
      .get(LIST)
      .query(true)
      .reply(401, readFixtureJson("google/error-401-invalid-credentials.json"));
    nock("https://oauth2.googleapis.com")
      .post("/token")
      .reply(400, readFixtureJson("google/oauth-error-invalid-grant.json"));
    const result = await connector.calendar.sync({ calendarId: "alice@example.com", window: WINDOW });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.code).toBe("unauthorized");
    expect(health.status().health).toBe("needs_reconnection");
    const text = JSON.stringify(result) + lines.join("\n");
    for (const s of ["OLD-ACCESS", 'REFRESH"', SECRET]) expect(text).not.toContain(s);
    // The next call does not hammer the token endpoint: refused at once (nock would fail otherwise).
    const again = await connector.calendar.sync({ calendarId: "alice@example.com", window: WINDOW });
    expect(again.ok === false && again.error.code).toBe("unauthorized");
  });

  it("a 401 whose refresh succeeds is sent once more with the new token", async () => {
    const { made, vault } = await vaultHost();
    if (!made.ok) throw new Error(made.error.message);
    nock("https://www.googleapis.com", { reqheaders: { authorization: "Bearer OLD-ACCESS" } })
      .get(LIST)
      .query(true)
      .reply(401, readFixtureJson("google/error-401-invalid-credentials.json"));
    nock("https://oauth2.googleapis.com")
      .post("/token")
      .reply(200, readFixtureJson("google/oauth-refresh-granted.json"));
    nock("https://www.googleapis.com", {
      reqheaders: { authorization: "Bearer ya29.TEST-REFRESHED-google-access" },
    })
      .get(LIST)
      .query(true)
      .reply(200, { kind: "calendar#events", items: [], nextSyncToken: "sync-1" });
    const result = await (made.value as Connector & Required<Pick<Connector, "calendar">>).calendar.sync({
      calendarId: "alice@example.com",
      window: WINDOW,
    });
    expect(result.ok).toBe(true);
    expect((await vault.get("salon"))?.accessToken).toBe("ya29.TEST-REFRESHED-google-access");
  });

  it("a missing client secret variable is a start error naming the setting and the variable", async () => {
    const { made } = await vaultHost({});
    expect(made.ok).toBe(false);
    if (made.ok) return;
    expect(made.error.message).toBe(
      "/hosts/0/connector/settings/clientSecretEnv: environment variable GOOGLE_CLIENT_SECRET is not set",
    );
  });
});
