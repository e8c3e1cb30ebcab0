/**
 * The one outbound address policy (src/protocol/net/policy.ts) for the base URLs an operator
 * types into the hosts config: an Openings or Servicialo host whose baseUrl is on loopback, or
 * names a host that resolves there, is never contacted unless the operator allowed private
 * upstreams (UPSTREAM_ALLOW_PRIVATE=1, the runtime's upstreamPolicy); the host starts degraded
 * instead. With the allowance, the very same config reaches the listener: the policy, not the
 * config, made the difference.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseHostsConfig } from "../../../src/booking/hosts/index.js";
import { readServeEnv, upstreamPolicyOf } from "../../../src/gateway/cli/serve-env.js";
import { createGatewayRuntime } from "../../../src/gateway/runtime/runtime.js";
import type { AddressPolicy } from "../../../src/protocol/net/policy.js";
import type { Resolver } from "../../../src/protocol/net/guarded-lookup.js";

let server: Server;
let port = 0;
let connections = 0;

beforeAll(async () => {
  // Any answer will do: what matters is whether a connection arrives at all.
  server = createServer((_req, res) => res.writeHead(503).end());
  server.on("connection", () => {
    connections++;
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const NAME = "api.platform.example";
const resolver: Resolver = (hostname) =>
  hostname === NAME
    ? Promise.resolve([{ address: "127.0.0.1", family: 4 }])
    : Promise.reject(new Error("no such name"));

function hosts(baseUrl: string) {
  const parsed = parseHostsConfig({
    hosts: [
      {
        id: "salon-openings",
        name: "Salon",
        timezone: "America/New_York",
        connector: {
          type: "openings",
          settings: { baseUrl, businessSlug: "salon", currency: "USD", timeoutMs: 2_000 },
        },
        policies: { confirmation: "instant", retention: "P365D" },
        services: [],
      },
      {
        id: "clinic-servicialo",
        name: "Clinic",
        timezone: "America/Santiago",
        connector: {
          type: "servicialo",
          settings: { baseUrl, orgSlug: "clinic", timezone: "America/Santiago", timeoutMs: 2_000 },
        },
        policies: { confirmation: "instant", retention: "P365D" },
        services: [],
      },
    ],
  });
  if (!parsed.ok) throw new Error(parsed.error.message);
  return parsed.value;
}

async function start(baseUrl: string, upstreamPolicy?: AddressPolicy) {
  const dataDir = mkdtempSync(join(tmpdir(), "gw-upstream-policy-"));
  const runtime = await createGatewayRuntime({
    hosts: hosts(baseUrl),
    publicOrigin: "http://127.0.0.1:8787",
    dataDir,
    workers: false,
    managedHostsReconcileMs: false,
    logger: { info: () => {}, warn: () => {}, error: () => {} },
    upstreamResolver: resolver,
    ...(upstreamPolicy !== undefined && { upstreamPolicy }),
  });
  const health = (id: string) => runtime.hosts.get(id)?.health?.status().health;
  return {
    health,
    close: async () => {
      await runtime.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

describe("Openings and Servicialo base URLs pass the outbound address policy", () => {
  for (const [what, baseUrl] of [
    ["a loopback literal", () => `http://127.0.0.1:${port}`],
    ["a loopback literal over https", () => `https://127.0.0.1:${port}`],
    ["a name resolving to loopback", () => `https://${NAME}:${port}`],
    ["localhost", () => `http://localhost:${port}`],
  ] as const) {
    it(`${what}: never contacted by default; both hosts start degraded`, async () => {
      connections = 0;
      const gw = await start(baseUrl());
      try {
        expect(connections).toBe(0);
        expect(gw.health("salon-openings")).not.toBe("ok");
        expect(gw.health("clinic-servicialo")).not.toBe("ok");
      } finally {
        await gw.close();
      }
      expect(connections).toBe(0);
    });
  }

  it("the operator's explicit allowance (UPSTREAM_ALLOW_PRIVATE=1) lets the same URL through", async () => {
    connections = 0;
    const gw = await start(`http://127.0.0.1:${port}`, { allowPrivate: true });
    try {
      expect(connections).toBeGreaterThanOrEqual(2); // one catalog read per host, at least
    } finally {
      await gw.close();
    }
  });
});

describe("UPSTREAM_ALLOW_PRIVATE", () => {
  it("is off unless the operator sets it; 1 widens the policy; anything else is a start error", () => {
    const off = readServeEnv({}, "/");
    expect(off.ok && upstreamPolicyOf(off.value)).toEqual({});
    const on = readServeEnv({ UPSTREAM_ALLOW_PRIVATE: "1" }, "/");
    expect(on.ok && upstreamPolicyOf(on.value)).toEqual({ allowPrivate: true });
    const bad = readServeEnv({ UPSTREAM_ALLOW_PRIVATE: "yes" }, "/");
    expect(bad.ok === false && bad.error).toContain("UPSTREAM_ALLOW_PRIVATE");
  });
});
