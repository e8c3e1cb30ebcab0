/**
 * Disconnecting a host created from the console (a ManagedHosts record): Square's RevokeToken is
 * called on a loopback fake with the client the host's settings name, the grant is deleted and
 * the host deactivated; a Microsoft grant is deleted and the owner told where to remove consent;
 * an unknown host or a config-file host that keeps no credentials here is refused.
 */
import { randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HostConfig, HostDirectory, HostRuntime } from "../../../../src/booking/api.js";
import { createDisconnect } from "../../../../src/edges/console/connect/disconnect.js";
import { vaultClientOf } from "../../../../src/gateway/credentials/host-tokens.js";
import { parseKeyRing } from "../../../../src/gateway/credentials/key-ring.js";
import { MemorySealedStore } from "../../../../src/gateway/credentials/store.js";
import { TokenVault } from "../../../../src/gateway/credentials/vault.js";
import type { ManagedHostRecord, ManagedHosts } from "../../../../src/edges/console/managed-hosts.js";

let server: Server;
let base: string;
const seen: { auth?: string; body: string }[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (c: string) => (body += c));
    req.on("end", () => {
      seen.push({
        ...(req.headers.authorization !== undefined && { auth: req.headers.authorization }),
        body,
      });
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ success: true }));
    });
  });
  base = await new Promise<string>((resolve) =>
    server.listen(0, "127.0.0.1", () =>
      resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`),
    ),
  );
});
afterAll(async () => {
  await new Promise((r) => server?.close(r));
});

function managed(records: ManagedHostRecord[]): ManagedHosts & { deactivated: string[] } {
  const deactivated: string[] = [];
  const byId = new Map(records.map((r) => [r.id, r]));
  return {
    deactivated,
    store: {
      list: () => Promise.resolve([...byId.values()]),
      listOwnedBy: (owner) => Promise.resolve([...byId.values()].filter((r) => r.owner === owner)),
      get: (id) => Promise.resolve(byId.get(id)),
      create: () => Promise.resolve("ok"),
      put: () => Promise.resolve("ok"),
      delete: () => Promise.resolve(),
      version: () => Promise.resolve("1"),
      close: () => Promise.resolve(),
    },
    activate: () => Promise.reject(new Error("not in this test")),
    deactivate: (id) => {
      deactivated.push(id);
      return Promise.resolve();
    },
    idAvailable: () => Promise.resolve(true),
    reconcile: () => Promise.resolve(),
  };
}

const record = (
  id: string,
  source: ManagedHostRecord["source"],
  settings: Record<string, unknown>,
): ManagedHostRecord => ({
  id,
  owner: "operator",
  source,
  state: "active",
  config: { id, name: `Shop ${id}`, connector: { type: source, settings } },
  createdAt: 1,
  updatedAt: 1,
});

function setup() {
  const ring = parseKeyRing(`k1:${randomBytes(32).toString("base64")}`);
  if (!ring.ok) throw new Error(ring.error);
  const vault = new TokenVault(ring.value, new MemorySealedStore());
  const squareSettings = {
    credentials: "vault",
    clientId: "sq0idp-app",
    clientSecretEnv: "SQUARE_CLIENT_SECRET",
  };
  const env = { SQUARE_CLIENT_SECRET: "sq0csp-SECRET" };
  const configs: Record<string, HostConfig> = {
    "sq-shop": {
      id: "sq-shop",
      name: "Shop sq-shop",
      connector: { type: "square", settings: squareSettings },
    } as unknown as HostConfig,
    plain: {
      id: "plain",
      name: "Plain",
      connector: { type: "google", settings: { accessTokenFile: "t" } },
    } as unknown as HostConfig,
  };
  const hosts: HostDirectory = {
    get: (id) =>
      configs[id] === undefined ? undefined : ({ config: configs[id] } as unknown as HostRuntime),
    list: () => [],
  };
  const mh = managed([record("sq-shop", "square", squareSettings), record("ms-shop", "microsoft", {})]);
  const lines: string[] = [];
  const log = (m: string, f?: Readonly<Record<string, unknown>>) => lines.push(JSON.stringify({ m, ...f }));
  const disconnect = createDisconnect({
    hosts,
    vault,
    managedHosts: mh,
    clientOf: (id) => vaultClientOf(configs[id]?.connector.settings ?? {}, env),
    revoke: { squareEndpoint: `${base}/oauth2/revoke` },
    logger: { info: log, warn: log, error: log },
  });
  return { vault, mh, disconnect, lines };
}

describe("disconnect a console-created host", () => {
  it("Square: RevokeToken with the host's client, grant deleted, host deactivated", async () => {
    const { vault, mh, disconnect, lines } = setup();
    await vault.put("sq-shop", {
      provider: "square",
      accessToken: "EAAA-ACCESS",
      refreshToken: "EQAA-REFRESH",
      tokenEndpoint: "https://connect.squareupsandbox.com/oauth2/token",
    });
    seen.length = 0;
    const done = await disconnect.disconnectHost("sq-shop");
    expect(done).toMatchObject({
      ok: true,
      value: { source: "square", upstream: "revoked", ownerAction: false },
    });
    expect(seen).toEqual([
      {
        auth: "Client sq0csp-SECRET",
        body: JSON.stringify({ client_id: "sq0idp-app", access_token: "EAAA-ACCESS" }),
      },
    ]);
    expect(await vault.get("sq-shop")).toBeUndefined();
    expect(mh.deactivated).toEqual(["sq-shop"]);
    expect(lines.join("\n")).toContain('"host disconnected"');
    expect(lines.join("\n")).not.toMatch(/EAAA|EQAA|SECRET/);
  });

  it("Microsoft: grant deleted, nothing sent, the owner told where to remove consent", async () => {
    const { vault, mh, disconnect } = setup();
    await vault.put("ms-shop", {
      provider: "microsoft",
      accessToken: "eyJ-A",
      refreshToken: "M.R",
      tokenEndpoint: "https://login.microsoftonline.com/common/oauth2/v2.0/token",
    });
    seen.length = 0;
    const done = await disconnect.disconnectHost("ms-shop");
    expect(done).toMatchObject({ ok: true, value: { upstream: "not_supported", ownerAction: true } });
    expect(done.ok && done.value.message).toContain("https://myapps.microsoft.com");
    expect(seen).toEqual([]);
    expect(await vault.get("ms-shop")).toBeUndefined();
    expect(mh.deactivated).toEqual(["ms-shop"]);
  });

  it("refuses an unknown host and a config-file host whose credentials are not in the vault", async () => {
    const { disconnect, mh } = setup();
    expect(await disconnect.disconnectHost("nobody")).toMatchObject({
      ok: false,
      error: { kind: "unknown_host" },
    });
    expect(await disconnect.disconnectHost("plain")).toMatchObject({
      ok: false,
      error: { kind: "not_disconnectable" },
    });
    expect(mh.deactivated).toEqual([]);
  });
});
