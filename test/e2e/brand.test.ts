/**
 * End to end over real HTTP: SchCP §2.4 brands, as the agent SDK's verifyBrand checks them
 * against a running gateway. "An agent MUST treat a sibling as part of the brand only if the
 * sibling's own discovery document, fetched and authorized as in §2.2, names the same brand.id
 * and lists this location back."
 *
 * The gateway serves the embedded brand (maple-street-auto and maple-street-auto-east, listing
 * each other), with maple-street-auto also naming three more locations for the failing cases:
 * harbourview-dental, which lists it back under another brand id; an unreachable one; and one
 * whose document is too large. fades-on-queen claims the brand without being listed back.
 */
import { createServer } from "node:http";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SchcpClient, createAgentKey } from "../../src/agent/index.js";
import type { BrandSibling } from "../../src/agent/index.js";
import { EMBEDDED_BRANCH_CONFIG } from "../../src/booking/hosts/index.js";
import { defaultConfig, startGateway } from "./support/gateway.js";
import type { E2eGateway } from "./support/gateway.js";

let gw: E2eGateway;
let junk: Server;
let junkOrigin: string;
/** A valid discovery document on another origin, naming the brand, that no rule of §2.2 authorizes. */
let rogue: Record<string, unknown> | undefined;
const client = new SchcpClient({ agentKey: createAgentKey() });
const url = (hostId: string) => `${gw.origin}/hosts/${hostId}/scheduling.json`;

beforeAll(async () => {
  // Answers every GET with 2 MiB, or never (/hang): for the byte cap and the timeout.
  junk = createServer((req, res) => {
    if (req.url === "/hang") return;
    if (req.url === "/rogue.json" && rogue !== undefined) {
      res.writeHead(200, { "content-type": "application/json", "schcp-version": "0.4" });
      res.end(JSON.stringify(rogue));
      return;
    }
    res.writeHead(200, { "content-type": "application/json", "schcp-version": "0.4" });
    res.end(`{"schcp":"0.4","pad":"${"x".repeat(2 << 20)}"}`);
  });
  await new Promise<void>((r) => junk.listen(0, "127.0.0.1", () => r()));
  junkOrigin = `http://127.0.0.1:${(junk.address() as AddressInfo).port}`;

  const config = defaultConfig();
  const branch = structuredClone(EMBEDDED_BRANCH_CONFIG.hosts[0]);
  config.hosts.push(branch as never);
  const maple = config.hosts.find((h) => h.id === "maple-street-auto")!;
  const brand = structuredClone(maple["brand"]) as { id: string; name: string; locations: object[] };
  maple["brand"] = {
    ...brand,
    locations: [
      ...brand.locations,
      { host_id: "harbourview-dental", name: "Harbourview" },
      // Port 9 on loopback (discard) is closed on any test machine: nothing answers.
      {
        host_id: "closed-garage",
        name: "Closed",
        discovery: "http://127.0.0.1:9/hosts/closed-garage/scheduling.json",
      },
      { host_id: "big-garage", name: "Big", discovery: `${junkOrigin}/big.json` },
      { host_id: "slow-garage", name: "Slow", discovery: `${junkOrigin}/hang` },
      { host_id: "rogue-garage", name: "Rogue", discovery: `${junkOrigin}/rogue.json` },
    ],
  };
  const harbour = config.hosts.find((h) => h.id === "harbourview-dental")!;
  harbour["brand"] = {
    id: "harbour-holdings",
    name: "Harbour Holdings",
    locations: [{ host_id: "harbourview-dental" }, { host_id: "maple-street-auto" }],
  };
  const fades = config.hosts.find((h) => h.id === "fades-on-queen")!;
  fades["brand"] = {
    id: "maple-street-group",
    name: "Maple Street Auto",
    locations: [{ host_id: "fades-on-queen" }, { host_id: "maple-street-auto" }],
  };
  gw = await startGateway({ config });
  // maple-street-auto's own document, re-served elsewhere as another host that lists maple back:
  // it names the gateway as its operator, whose document does not list it (§2.2 rule 2 fails).
  const mapleDoc = (await (await fetch(url("maple-street-auto"))).json()) as Record<string, unknown>;
  rogue = {
    ...mapleDoc,
    host: { ...(mapleDoc["host"] as object), id: "rogue-garage" },
    brand: {
      id: "maple-street-group",
      name: "Maple Street Auto",
      locations: [{ host_id: "maple-street-auto", discovery: url("maple-street-auto") }],
    },
  };
}, 60_000);
afterAll(async () => {
  await gw?.close();
  junk?.closeAllConnections();
  await new Promise((r) => junk?.close(r));
});

function byId(siblings: readonly BrandSibling[]): Record<string, BrandSibling> {
  return Object.fromEntries(siblings.map((s) => [s.hostId, s]));
}

describe("verifyBrand against a real gateway (§2.4)", () => {
  it("two locations that list each other under one brand id are both verified", async () => {
    const fromMaple = await client.verifyBrand(url("maple-street-auto"), { timeoutMs: 1_000 });
    expect(fromMaple.ok, fromMaple.ok ? "" : fromMaple.error.message).toBe(true);
    if (!fromMaple.ok) return;
    expect(fromMaple.value.brand).toEqual({ id: "maple-street-group", name: "Maple Street Auto" });
    const east = byId(fromMaple.value.siblings)["maple-street-auto-east"];
    expect(east).toMatchObject({
      verified: true,
      discovery: url("maple-street-auto-east"),
      name: "Danforth Ave",
    });
    // The sibling as discovered: its endpoint authorized under §2.2.
    expect(east?.host?.authorization.rule).toBe(2);

    const fromEast = await client.verifyBrand(url("maple-street-auto-east"));
    expect(fromEast.ok && fromEast.value.siblings).toEqual([
      expect.objectContaining({ hostId: "maple-street-auto", verified: true }),
    ]);
  });

  it("this location itself is not reported as its own sibling", async () => {
    const r = await client.verifyBrand(url("maple-street-auto"), { timeoutMs: 1_000 });
    expect(r.ok && r.value.siblings.map((s) => s.hostId)).not.toContain("maple-street-auto");
  });

  it("a third host that claims the brand but is not listed back is not verified (not_listed_back)", async () => {
    const r = await client.verifyBrand(url("fades-on-queen"));
    expect(r.ok && r.value.siblings).toEqual([
      expect.objectContaining({ hostId: "maple-street-auto", verified: false, reason: "not_listed_back" }),
    ]);
  });

  it("a sibling that lists this location back under a different brand id is not verified (different_brand)", async () => {
    const r = await client.verifyBrand(url("maple-street-auto"), { timeoutMs: 1_000 });
    expect(r.ok && byId(r.value.siblings)["harbourview-dental"]).toMatchObject({
      verified: false,
      reason: "different_brand",
    });
  });

  it("§2.2: a sibling whose endpoint no rule authorizes is not verified (not_authorized), even naming the brand and listing this location back", async () => {
    const r = await client.verifyBrand(url("maple-street-auto"), { timeoutMs: 1_000 });
    expect(r.ok && byId(r.value.siblings)["rogue-garage"]).toMatchObject({
      verified: false,
      reason: "not_authorized",
    });
  });

  it("an unreachable sibling is not verified (unreachable)", async () => {
    const r = await client.verifyBrand(url("maple-street-auto"), { timeoutMs: 1_000 });
    expect(r.ok && byId(r.value.siblings)["closed-garage"]).toMatchObject({
      verified: false,
      reason: "unreachable",
    });
  });

  it("fetches are bounded: an answer past the byte cap, or one that never comes, is unreachable", async () => {
    const started = Date.now();
    const r = await client.verifyBrand(url("maple-street-auto"), { timeoutMs: 1_000, maxBytes: 64 * 1024 });
    expect(Date.now() - started).toBeLessThan(5_000);
    if (!r.ok) throw new Error(r.error.message);
    const s = byId(r.value.siblings);
    expect(s["big-garage"]).toMatchObject({ verified: false, reason: "unreachable" });
    expect(s["big-garage"]?.message).toMatch(/larger than 65536 bytes/);
    expect(s["slow-garage"]).toMatchObject({ verified: false, reason: "unreachable" });
    // The siblings that hold are still verified alongside.
    expect(s["maple-street-auto-east"]?.verified).toBe(true);
  });

  it("a location given as a host already discovered is checked the same way", async () => {
    const host = await client.discoverHost(url("maple-street-auto-east"));
    if (!host.ok) throw new Error(host.error.message);
    const r = await client.verifyBrand(host.value);
    expect(r.ok && r.value.siblings[0]).toMatchObject({ hostId: "maple-street-auto", verified: true });
  });

  it("a location that names no brand is an error, not an empty brand", async () => {
    const host = await client.discoverHost(url("harbourview-dental"));
    if (!host.ok) throw new Error(host.error.message);
    const { brand: _omitted, ...document } = host.value.document;
    const r = await client.verifyBrand({ url: host.value.url, document });
    expect(!r.ok && r.error).toMatchObject({ code: "invalid_discovery", field: "/brand" });
  });
});
