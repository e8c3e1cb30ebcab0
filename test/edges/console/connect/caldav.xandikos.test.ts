/**
 * CalDAV connect: the server URL and credentials are checked by live
 * calendar discovery against a real xandikos (test/support/xandikos.ts) before anything is saved.
 *
 * xandikos has no authentication of its own (it accepts any password; its documentation has it
 * run behind a reverse proxy that authenticates). So the wrong-password case runs through such a
 * proxy here: a loopback HTTP server that answers 401 unless the Basic credentials match and
 * otherwise forwards the request to xandikos unchanged. Unreachable and not-CalDAV servers are
 * tested too.
 */
import { randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseKeyRing } from "../../../../src/gateway/credentials/key-ring.js";
import { MemorySealedStore } from "../../../../src/gateway/credentials/store.js";
import { TokenVault } from "../../../../src/gateway/credentials/vault.js";
import { BasicCredentialVault } from "../../../../src/edges/console/connect/basic-vault.js";
import { checkCaldav, connectCaldav } from "../../../../src/edges/console/connect/caldav.js";
import { caldavDiscovery } from "../../../../src/gateway/runtime/connect-wiring.js";
import { UNIFORM_REFUSAL } from "../../../../src/protocol/net/policy.js";
import { startBasicAuthProxy, type BasicAuthProxy } from "../../../support/basic-auth-proxy.js";
import { startXandikos, XANDIKOS_START_TIMEOUT_MS, type Xandikos } from "../../../support/xandikos.js";

const USER = "jane@example.com";
const PASSWORD = "caldav-Pa55-must-not-leak";

let xandikos: Xandikos;
let proxy: BasicAuthProxy | undefined;
let proxyUrl: string;
let notCaldav: Server;
let notCaldavUrl: string;
let closedUrl: string;

const listen = (server: Server): Promise<string> =>
  new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () =>
      resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`),
    ),
  );

beforeAll(async () => {
  xandikos = await startXandikos();
  proxy = await startBasicAuthProxy(new URL(xandikos.serverUrl), USER, PASSWORD);
  proxyUrl = proxy.url;
  // A web server that is not a CalDAV server: a page for every GET, 405 for WebDAV methods.
  notCaldav = createServer((req, res) => {
    if (req.method === "GET") res.writeHead(200, { "content-type": "text/html" }).end("<h1>Welcome</h1>");
    else res.writeHead(405, { allow: "GET" }).end();
  });
  notCaldavUrl = await listen(notCaldav);
  const closed = createServer();
  closedUrl = await listen(closed);
  await new Promise((r) => closed.close(r));
}, XANDIKOS_START_TIMEOUT_MS);

afterAll(async () => {
  await proxy?.close();
  await new Promise((r) => notCaldav?.close(r));
  await xandikos?.stop();
});

/** The operator's allowance (UPSTREAM_ALLOW_PRIVATE=1): xandikos and its proxy are on loopback. */
const LOOPBACK = { discovery: caldavDiscovery, policy: { allowPrivate: true } };
/** The address policy's defaults (public addresses only). */
const DEFAULTS = { discovery: caldavDiscovery };

function vaults() {
  const ring = parseKeyRing(`k1:${randomBytes(32).toString("base64")}`);
  if (!ring.ok) throw new Error(ring.error);
  const store = new MemorySealedStore();
  return { basic: new BasicCredentialVault(ring.value, store), store, ring: ring.value };
}

describe("checkCaldav against xandikos", () => {
  it("lists the account's calendars (the default one and one made for the test)", async () => {
    const made = await xandikos.makeCalendar("connect-check");
    const r = await checkCaldav({ serverUrl: proxyUrl, username: USER, password: PASSWORD }, LOOPBACK);
    expect(r.ok).toBe(true);
    const ids = r.ok ? r.value.map((c) => c.calendarId) : [];
    expect(ids).toContain(xandikos.defaultCalendar);
    expect(ids).toContain(made);
  });

  it("a wrong password is unauthorized, with a message that does not echo it", async () => {
    const r = await checkCaldav({ serverUrl: proxyUrl, username: USER, password: "wrong-Pa55" }, LOOPBACK);
    expect(r).toMatchObject({ ok: false, error: { kind: "unauthorized" } });
    expect(JSON.stringify(r)).not.toContain("wrong-Pa55");
  });

  it("a server that does not answer is unreachable", async () => {
    const r = await checkCaldav({ serverUrl: closedUrl, username: USER, password: PASSWORD }, LOOPBACK);
    expect(r).toMatchObject({ ok: false, error: { kind: "unreachable" } });
  });

  it("a web server that is not CalDAV is said to be so", async () => {
    const r = await checkCaldav({ serverUrl: notCaldavUrl, username: USER, password: PASSWORD }, LOOPBACK);
    expect(r).toMatchObject({ ok: false, error: { kind: "not_caldav" } });
  });

  it("settings the connector refuses are invalid before any request", async () => {
    const r = await checkCaldav(
      {
        serverUrl: "ftp://calendar.example.com/",
        username: USER,
        password: PASSWORD,
      },
      DEFAULTS,
    );
    expect(r).toMatchObject({ ok: false, error: { kind: "invalid" } });
  });

  it("without the operator's allowance, plain http and loopback are the address policy's one refusal", async () => {
    for (const serverUrl of ["http://calendar.example.com/", proxyUrl]) {
      const r = await checkCaldav({ serverUrl, username: USER, password: PASSWORD }, DEFAULTS);
      expect(r).toEqual({ ok: false, error: { kind: "refused", message: UNIFORM_REFUSAL } });
    }
  });
});

describe("connectCaldav", () => {
  it("saves nothing when the check fails", async () => {
    const v = vaults();
    const r = await connectCaldav(
      "salon",
      { serverUrl: proxyUrl, username: USER, password: "wrong-Pa55" },
      v.basic,
      LOOPBACK,
    );
    expect(r.ok).toBe(false);
    expect(v.store.records.size).toBe(0);
  });

  it("after a good check the password is only in the vault, sealed, and reads back", async () => {
    const v = vaults();
    const r = await connectCaldav(
      "salon",
      { serverUrl: proxyUrl, username: USER, password: PASSWORD },
      v.basic,
      LOOPBACK,
    );
    expect(r.ok).toBe(true);
    const sealed = v.store.records.get("salon") ?? "";
    expect(sealed).not.toContain(PASSWORD);
    expect(sealed).not.toContain(USER);
    expect(await v.basic.get("salon")).toEqual({
      kind: "basic",
      serverUrl: proxyUrl,
      username: USER,
      password: PASSWORD,
    });
    // A Basic record is sealed for its own purpose: a TokenVault on the same store cannot open it.
    await expect(new TokenVault(v.ring, v.store).get("salon")).rejects.toThrow(/cannot be opened/);
  });
});
