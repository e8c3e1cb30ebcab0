import { describe, expect, it } from "vitest";
import { offerSha256 } from "../../../../src/protocol/schcp/offer/hash.js";
import { readFixtureJson } from "../../../support/fixtures.js";

describe("offerSha256 (SchCP §5.3: base64url SHA-256 of the exact compact JWS)", () => {
  it("hashes the FIPS 180-2 'abc' vector to its known digest", () => {
    // ba7816bf…f20015ad in hex, re-encoded as base64url without padding.
    expect(offerSha256("abc")).toBe("ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0");
  });

  it("hashes the RFC 8037 A.4 compact JWS to a value computed with openssl", () => {
    const { A4_compact_jws } = readFixtureJson<{ A4_compact_jws: string }>(
      "vectors/rfc8037_ed25519_jws.json",
    );
    // printf '%s' "$JWS" | openssl dgst -sha256 -binary | base64 | tr '+/' '-_' | tr -d '='
    expect(offerSha256(A4_compact_jws)).toBe("MdCxB6jVOkPga5tDsATK0F4qK8-v2Htlk9NYpOqMvzo");
  });

  it("is over the bytes, not the JSON: one changed character changes the hash", () => {
    const { A4_compact_jws } = readFixtureJson<{ A4_compact_jws: string }>(
      "vectors/rfc8037_ed25519_jws.json",
    );
    expect(offerSha256(`${A4_compact_jws.slice(0, -1)}A`)).not.toBe(offerSha256(A4_compact_jws));
    expect(offerSha256(A4_compact_jws)).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });
});
