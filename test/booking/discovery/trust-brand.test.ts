/**
 * The host config's trust.attesters (SchCP §2.1, §7.5) and brand (§2.4): read by the config
 * parser, published in the host's discovery document.
 */
import { describe, expect, it } from "vitest";
import { hostDiscoveryDocument } from "../../../src/edges/schcp/discovery/index.js";
import { parseHostsConfig } from "../../../src/booking/hosts/index.js";
import { generateEd25519KeyPair } from "../../../src/protocol/jose/jwk.js";
import { validateSchcp } from "../../../src/protocol/schcp/validate.js";
import { hostConfig, runtime } from "../holds/support.js";

const ORIGIN = "https://gateway.example";
const key = generateEd25519KeyPair().publicJwk;

const trust = {
  attesters: [{ id: "phonecheck.example", name: "PhoneCheck", keys: [{ ...key, kid: "pc-1" }] }],
};
const brand = {
  id: "maple-street-group",
  name: "Maple Street Auto",
  locations: [
    { host_id: "maple-street-auto", name: "Queen St" },
    {
      host_id: "maple-street-auto-east",
      name: "Danforth",
      discovery: "https://east.example/.well-known/scheduling.json",
    },
  ],
};

function parseError(over: Record<string, unknown>): { field: string; message: string } {
  const parsed = parseHostsConfig({
    hosts: [{ id: "h", name: "H", timezone: "America/Toronto", connector: { type: "synthetic" }, ...over }],
  });
  expect(parsed.ok).toBe(false);
  if (parsed.ok) throw new Error("expected an error");
  return parsed.error;
}

describe("config: trust.attesters (§2.1, §7.5)", () => {
  it("reads each attester's id, name and Ed25519 keys", () => {
    expect(hostConfig({ trust }).trust).toEqual({
      attesters: [{ id: "phonecheck.example", name: "PhoneCheck", keys: [{ ...key, kid: "pc-1" }] }],
    });
  });

  it("refuses a key that is not an Ed25519 public JWK, naming it", () => {
    const bad = { attesters: [{ id: "a", keys: [{ kty: "EC", crv: "P-256", x: "AA", y: "AA" }] }] };
    expect(parseError({ trust: bad }).field).toMatch(/^\/hosts\/0\/trust\/attesters\/0\/keys\/0/);
  });

  it("refuses a private key in the config (member d)", () => {
    const bad = { attesters: [{ id: "a", keys: [{ ...key, d: "AAAA" }] }] };
    expect(parseError({ trust: bad }).field).toBe("/hosts/0/trust/attesters/0/keys/0/d");
  });

  it("refuses an attester listed twice, and one without keys", () => {
    const twice = { attesters: [trust.attesters[0], trust.attesters[0]] };
    expect(parseError({ trust: twice }).field).toBe("/hosts/0/trust/attesters/1/id");
    expect(parseError({ trust: { attesters: [{ id: "a", keys: [] }] } }).field).toBe(
      "/hosts/0/trust/attesters/0/keys",
    );
  });
});

describe("config: brand (§2.4)", () => {
  it("reads the brand and its locations", () => {
    expect(hostConfig({ brand }).brand).toEqual({
      id: "maple-street-group",
      name: "Maple Street Auto",
      locations: [
        { hostId: "maple-street-auto", name: "Queen St" },
        {
          hostId: "maple-street-auto-east",
          name: "Danforth",
          discovery: "https://east.example/.well-known/scheduling.json",
        },
      ],
    });
  });

  it("refuses a plain-http discovery URL off loopback, and a location listed twice", () => {
    const http = { ...brand, locations: [{ host_id: "x", discovery: "http://east.example/s.json" }] };
    expect(parseError({ brand: http }).field).toBe("/hosts/0/brand/locations/0/discovery");
    const twice = { ...brand, locations: [brand.locations[0], brand.locations[0]] };
    expect(parseError({ brand: twice }).field).toBe("/hosts/0/brand/locations/1/host_id");
  });
});

describe("discovery publishes trust and brand", () => {
  it("§2.1/§7.5: trust.attesters with their keys, and the attestations capability, when the host trusts any", () => {
    const doc = hostDiscoveryDocument(runtime(hostConfig({ trust })), { publicOrigin: ORIGIN });
    expect(validateSchcp("DiscoveryDocument", doc).ok).toBe(true);
    expect(doc.trust).toEqual({
      attesters: [{ id: "phonecheck.example", name: "PhoneCheck", keys: [{ ...key, kid: "pc-1" }] }],
    });
    expect(doc.capabilities).toContain("attestations");
  });

  it("§7.5: a host that trusts none publishes neither trust nor the capability", () => {
    const doc = hostDiscoveryDocument(runtime(hostConfig()), { publicOrigin: ORIGIN });
    expect(doc.trust).toBeUndefined();
    expect(doc.capabilities).not.toContain("attestations");
  });

  it("§2.4: the brand, each location with an absolute discovery URL (this gateway's for one it serves)", () => {
    const doc = hostDiscoveryDocument(runtime(hostConfig({ brand })), { publicOrigin: ORIGIN });
    expect(validateSchcp("DiscoveryDocument", doc).ok).toBe(true);
    expect(doc.brand).toEqual({
      id: "maple-street-group",
      name: "Maple Street Auto",
      locations: [
        {
          host_id: "maple-street-auto",
          name: "Queen St",
          discovery: `${ORIGIN}/hosts/maple-street-auto/scheduling.json`,
        },
        {
          host_id: "maple-street-auto-east",
          name: "Danforth",
          discovery: "https://east.example/.well-known/scheduling.json",
        },
      ],
    });
  });
});
