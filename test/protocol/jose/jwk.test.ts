import { sign, verify } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  PRINCIPAL_URN_PREFIX,
  ed25519PrivateKeyFromJwk,
  ed25519PublicJwkOf,
  ed25519PublicKeyFromJwk,
  generateEd25519KeyPair,
  jwkThumbprint,
  parseEd25519PublicJwk,
  principalUrn,
} from "../../../src/protocol/jose/jwk.js";
import type { Ed25519PrivateJwk } from "../../../src/protocol/jose/jwk.js";
import { readFixtureJson } from "../../support/fixtures.js";

interface Rfc7638 {
  jwk_input: Record<string, unknown>;
  expected_thumbprint_sha256_b64url: string;
  non_rfc_extra_from_panva: { okp_ed25519_example: { jwk: Record<string, unknown>; thumbprint: string } };
}
interface Rfc8037 {
  A1_private_jwk: Ed25519PrivateJwk;
  A2_public_jwk: Record<string, unknown>;
  A3_thumbprint_b64url: string;
}
const rfc7638 = readFixtureJson<Rfc7638>("vectors/rfc7638_thumbprint.json");
const rfc8037 = readFixtureJson<Rfc8037>("vectors/rfc8037_ed25519_jws.json");
const X = rfc8037.A2_public_jwk.x as string;

describe("jwkThumbprint (RFC 7638)", () => {
  it("reproduces the RFC 7638 §3.1 RSA thumbprint, ignoring alg and kid", () => {
    expect(jwkThumbprint(rfc7638.jwk_input)).toBe(rfc7638.expected_thumbprint_sha256_b64url);
  });

  it("reproduces the RFC 8037 A.3 Ed25519 thumbprint", () => {
    expect(jwkThumbprint(rfc8037.A2_public_jwk)).toBe(rfc8037.A3_thumbprint_b64url);
    expect(jwkThumbprint(rfc8037.A1_private_jwk)).toBe(rfc8037.A3_thumbprint_b64url);
  });

  it("reproduces the OKP example", () => {
    const { jwk, thumbprint } = rfc7638.non_rfc_extra_from_panva.okp_ed25519_example;
    expect(jwkThumbprint(jwk)).toBe(thumbprint);
  });

  it("does not depend on member order or optional members", () => {
    expect(jwkThumbprint({ x: X, kid: "k1", crv: "Ed25519", use: "sig", kty: "OKP" })).toBe(
      rfc8037.A3_thumbprint_b64url,
    );
  });

  it("covers x and y for EC keys (SchCP §3.4)", () => {
    const a = jwkThumbprint({ kty: "EC", crv: "P-256", x: "AA", y: "AQ" });
    expect(jwkThumbprint({ kty: "EC", crv: "P-256", x: "AA", y: "Ag" })).not.toBe(a);
  });

  it("throws (programmer error) on an unsupported or incomplete JWK", () => {
    expect(() => jwkThumbprint({ kty: "OKP", crv: "Ed25519" })).toThrow(TypeError);
    expect(() => jwkThumbprint({ kty: "XYZ" })).toThrow(TypeError);
  });

  it("builds the principal URN (SchCP §3.3)", () => {
    expect(PRINCIPAL_URN_PREFIX).toBe("urn:schcp:principal:jwk-thumbprint:");
    expect(principalUrn("abc")).toBe("urn:schcp:principal:jwk-thumbprint:abc");
  });
});

describe("parseEd25519PublicJwk", () => {
  it("accepts exactly kty, crv, x and returns a fresh closed object", () => {
    expect(parseEd25519PublicJwk({ x: X, crv: "Ed25519", kty: "OKP" }, "/principal_jwk")).toEqual({
      ok: true,
      value: { kty: "OKP", crv: "Ed25519", x: X },
    });
  });

  it("accepts kid and use only when allowed", () => {
    const withKid = { kty: "OKP", crv: "Ed25519", x: X, kid: "k1" };
    expect(parseEd25519PublicJwk(withKid, "", { allowKid: true })).toEqual({ ok: true, value: withKid });
    expect(parseEd25519PublicJwk(withKid, "")).toMatchObject({
      ok: false,
      error: { code: "unknown_member", field: "/kid" },
    });
    const withUse = { kty: "OKP", crv: "Ed25519", x: X, use: "sig" };
    expect(parseEd25519PublicJwk(withUse, "", { allowUse: true })).toMatchObject({ ok: true });
    expect(parseEd25519PublicJwk(withUse, "")).toMatchObject({
      ok: false,
      error: { code: "unknown_member" },
    });
  });

  it.each([
    ["a private d", { ...rfc8037.A1_private_jwk }, "private_key", "/k/d"],
    ["an unknown member", { kty: "OKP", crv: "Ed25519", x: X, alg: "EdDSA" }, "unknown_member", "/k/alg"],
    ["kty EC", { kty: "EC", crv: "Ed25519", x: X }, "invalid_value", "/k/kty"],
    ["crv X25519", { kty: "OKP", crv: "X25519", x: X }, "invalid_value", "/k/crv"],
    ["missing x", { kty: "OKP", crv: "Ed25519" }, "invalid_value", "/k/x"],
    ["x of 31 bytes", { kty: "OKP", crv: "Ed25519", x: X.slice(0, 41) + "A" }, "invalid_value", "/k/x"],
    ["x with padding", { kty: "OKP", crv: "Ed25519", x: X + "=" }, "invalid_base64url", "/k/x"],
    [
      "x in standard base64",
      { kty: "OKP", crv: "Ed25519", x: X.replace(/_/g, "/") },
      "invalid_base64url",
      "/k/x",
    ],
    ["a numeric kid", { kty: "OKP", crv: "Ed25519", x: X, kid: 1 }, "invalid_value", "/k/kid"],
    ["an array", [X], "invalid_type", "/k"],
    ["null", null, "invalid_type", "/k"],
    ["a string", "OKP", "invalid_type", "/k"],
  ])("refuses %s", (_n, value, code, field) => {
    expect(parseEd25519PublicJwk(value, "/k", { allowKid: true })).toMatchObject({
      ok: false,
      error: { code, field },
    });
  });

  it("refuses d before looking at anything else, with its own message", () => {
    const r = parseEd25519PublicJwk({ d: "x", foo: 1 }, "schcp-agent-key");
    expect(r).toMatchObject({ ok: false, error: { code: "private_key", field: "schcp-agent-key/d" } });
    expect(!r.ok && r.error.message).toMatch(/private/);
  });
});

describe("Ed25519 keys (node:crypto)", () => {
  it("imports the RFC 8037 A.1 private key and A.2 public key as a matching pair", () => {
    const priv = ed25519PrivateKeyFromJwk(rfc8037.A1_private_jwk);
    const pub = ed25519PublicKeyFromJwk({ kty: "OKP", crv: "Ed25519", x: X });
    const sig = sign(null, Buffer.from("m"), priv);
    expect(verify(null, Buffer.from("m"), pub, sig)).toBe(true);
    expect(ed25519PublicJwkOf(priv)).toEqual({ kty: "OKP", crv: "Ed25519", x: X });
  });

  it("generates a fresh pair whose public JWK parses strictly", () => {
    const a = generateEd25519KeyPair();
    const b = generateEd25519KeyPair();
    expect(a.publicJwk.x).not.toBe(b.publicJwk.x);
    expect(parseEd25519PublicJwk(a.publicJwk, "")).toEqual({ ok: true, value: a.publicJwk });
    expect(ed25519PublicJwkOf(a.privateKey)).toEqual(a.publicJwk);
  });
});
