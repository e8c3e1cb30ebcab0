/**
 * A CalDAV host with `credentials: "vault"` (credentials/caldav-vault.ts) against a real xandikos
 * behind an authenticating proxy (xandikos accepts any password; see
 * test/edges/console/connect/caldav.xandikos.test.ts): the username and password come from the Basic
 * credential vault at call time. No record → unauthorized without calling the server; the
 * password connectCaldav saved → the calendar syncs; a disconnect deletes it → unauthorized
 * again, and host health shows needs_reconnection.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HostConfig, HostDirectory, HostRuntime } from "../../../src/booking/api.js";
import { HostHealth } from "../../../src/booking/hosts/health.js";
import { hostTimeRefusal } from "../../../src/booking/hosts/refusals.js";
import { watchConnector } from "../../../src/booking/hosts/watched-connector.js";
import type { CaldavConnector } from "../../../src/connectors/caldav/connector.js";
import { BasicCredentialVault } from "../../../src/edges/console/connect/basic-vault.js";
import { connectCaldav } from "../../../src/edges/console/connect/caldav.js";
import { caldavDiscovery } from "../../../src/gateway/runtime/connect-wiring.js";
import { createDisconnect } from "../../../src/edges/console/connect/disconnect.js";
import { parseKeyRing } from "../../../src/gateway/credentials/key-ring.js";
import { MemorySealedStore } from "../../../src/gateway/credentials/store.js";
import { TokenVault } from "../../../src/gateway/credentials/vault.js";
import { connectorFor, type ConnectorDeps } from "../../../src/gateway/runtime/connectors.js";
import { startBasicAuthProxy, type BasicAuthProxy } from "../../support/basic-auth-proxy.js";
import { startXandikos, XANDIKOS_START_TIMEOUT_MS, type Xandikos } from "../../support/xandikos.js";

const USER = "jane@example.com";
const PASSWORD = "caldav-Pa55-must-not-leak";

let xandikos: Xandikos;
let proxy: BasicAuthProxy | undefined;
let proxyUrl: string;
let proxied = 0;

beforeAll(async () => {
  xandikos = await startXandikos();
  proxy = await startBasicAuthProxy(new URL(xandikos.serverUrl), USER, PASSWORD, () => {
    proxied += 1;
  });
  proxyUrl = proxy.url;
}, XANDIKOS_START_TIMEOUT_MS);

afterAll(async () => {
  await proxy?.close();
  await xandikos?.stop();
});

function setup(settings: Record<string, unknown> = {}, withBasic = true) {
  const ring = parseKeyRing(`k1:${randomBytes(32).toString("base64")}`);
  if (!ring.ok) throw new Error(ring.error);
  const basic = new BasicCredentialVault(ring.value, new MemorySealedStore());
  const config = {
    id: "jane-caldav",
    name: "Jane",
    kind: "business",
    connector: {
      type: "caldav",
      settings: {
        serverUrl: proxyUrl,
        calendarPath: xandikos.defaultCalendar,
        credentials: "vault",
        ...settings,
      },
    },
  } as unknown as HostConfig;
  const deps = {
    clock: { now: () => Date.now() },
    syntheticBackend: undefined,
    credentials: {
      vault: new TokenVault(ring.value, new MemorySealedStore()),
      ...(withBasic && { basic }),
      env: {},
    },
  } as unknown as ConnectorDeps;
  return { basic, config, made: connectorFor(config, "/hosts/0", deps) };
}

const window = () => ({ start: Date.now(), end: Date.now() + 7 * 86_400_000 });

describe('a CalDAV host with credentials: "vault"', () => {
  it("reads the password from the vault at call time; none, or deleted by a disconnect: unauthorized", async () => {
    const { basic, config, made } = setup();
    if (!made.ok) throw new Error(made.error.message);
    const health = new HostHealth("jane-caldav", { now: () => Date.now() });
    const connector = watchConnector(made.value, health) as unknown as CaldavConnector;
    const calendarId = xandikos.defaultCalendar;

    // Nothing stored yet: refused without a request to the server.
    const before = proxied;
    const none = await connector.calendar.sync({ calendarId, window: window() });
    expect(none.ok === false && none.error).toMatchObject({
      code: "unauthorized",
      message: expect.stringContaining("no CalDAV password in the vault") as string,
    });
    expect(proxied).toBe(before);
    expect(health.status().health).toBe("needs_reconnection");

    // Connected (checked live, then saved): the same connector now syncs through the proxy.
    const connected = await connectCaldav(
      "jane-caldav",
      { serverUrl: proxyUrl, username: USER, password: PASSWORD },
      basic,
      // The operator's allowance (UPSTREAM_ALLOW_PRIVATE=1): the proxy is on loopback.
      { discovery: caldavDiscovery, policy: { allowPrivate: true } },
    );
    expect(connected.ok).toBe(true);
    const synced = await connector.calendar.sync({ calendarId, window: window() });
    expect(synced.ok).toBe(true);
    expect(proxied).toBeGreaterThan(before);

    // Disconnected: the password is deleted, the host needs reconnection and offers no time.
    const runtime = { config, connector, health } as unknown as HostRuntime;
    const hosts: HostDirectory = {
      get: (id) => (id === "jane-caldav" ? runtime : undefined),
      list: () => [runtime],
    };
    const done = await createDisconnect({ hosts, basicVault: basic }).disconnectHost("jane-caldav");
    expect(done).toMatchObject({
      ok: true,
      value: { source: "caldav", upstream: "not_supported", ownerAction: true },
    });
    expect(done.ok && done.value.message).toContain("revoke the app password at your calendar provider");
    expect(await basic.get("jane-caldav")).toBeUndefined();
    expect(hostTimeRefusal(runtime, Date.now())).toMatchObject({ reason: "host_needs_reconnection" });
    const after = proxied;
    const gone = await connector.calendar.sync({ calendarId, window: window() });
    expect(gone.ok === false && gone.error.code).toBe("unauthorized");
    expect(proxied).toBe(after);
    expect(JSON.stringify([none, gone, done])).not.toContain(PASSWORD);
  });

  it("a stored password the server refuses is unauthorized from the server", async () => {
    const { basic, made } = setup();
    if (!made.ok) throw new Error(made.error.message);
    await basic.put("jane-caldav", {
      kind: "basic",
      serverUrl: proxyUrl,
      username: USER,
      password: "old-Pa55",
    });
    const before = proxied;
    const r = await (made.value as unknown as CaldavConnector).calendar.sync({
      calendarId: xandikos.defaultCalendar,
      window: window(),
    });
    expect(r.ok === false && r.error.code).toBe("unauthorized");
    expect(proxied).toBeGreaterThan(before);
  });

  it("a password saved for another server is not sent", async () => {
    const { basic, made } = setup();
    if (!made.ok) throw new Error(made.error.message);
    await basic.put("jane-caldav", {
      kind: "basic",
      serverUrl: "https://caldav.example.com/",
      username: USER,
      password: PASSWORD,
    });
    const before = proxied;
    const r = await (made.value as unknown as CaldavConnector).calendar.sync({
      calendarId: xandikos.defaultCalendar,
      window: window(),
    });
    expect(r.ok === false && r.error).toMatchObject({
      code: "unauthorized",
      message: expect.stringContaining("for another server") as string,
    });
    expect(proxied).toBe(before);
  });

  it("config errors name the field: vault with a password, or no vault (TOKEN_KEYS unset)", () => {
    const both = setup({ username: USER, password: PASSWORD }).made;
    expect(both.ok === false && both.error.message).toBe(
      '/hosts/0/connector/settings/credentials: give credentials "vault" or a username and password, not both',
    );
    const noVault = setup({}, false).made;
    expect(noVault.ok === false && noVault.error.message).toContain("needs TOKEN_KEYS set");
  });
});
