import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  decodeBase64Strict,
  decodeBase64Url,
  encodeBase64,
  encodeBase64Url,
  sha256,
  sha256Base64Url,
} from "../../../src/protocol/json/base64.js";
import { readFixtureJson } from "../../support/fixtures.js";

const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");

describe("base64url (RFC 7515 §2)", () => {
  it("property: round-trips every byte string, without padding", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 80 }), (b) => {
        const s = encodeBase64Url(b);
        const back = decodeBase64Url(s, "/x");
        return !s.includes("=") && back.ok && hex(back.value) === hex(b);
      }),
    );
  });

  it("property: whatever decodes re-encodes to the same text (one spelling per value)", () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(..."AQgw_-=+/ .aZ09") }), (s) => {
        const r = decodeBase64Url(s, "/x");
        return !r.ok || encodeBase64Url(r.value) === s;
      }),
    );
  });

  it.each([
    ["padding", "AQ=="],
    ["standard alphabet +", "+/8"],
    ["whitespace", "AQ ID"],
    ["newline", "AQID\n"],
    ["length 1 mod 4", "AQIDB"],
    ["non-canonical trailing bits", "AR"],
    ["non-canonical trailing bits (2 bytes)", "AQJ"],
  ])("refuses %s", (_n, s) => {
    expect(decodeBase64Url(s, "/k/x")).toMatchObject({
      ok: false,
      error: { code: "invalid_base64url", field: "/k/x" },
    });
  });

  it("decodes the empty string to no bytes", () => {
    expect(decodeBase64Url("", "/x")).toEqual({ ok: true, value: new Uint8Array(0) });
  });
});

describe("padded base64 (RFC 4648 §4, RFC 8941 byte sequences)", () => {
  it("property: round-trips every byte string", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 80 }), (b) => {
        const back = decodeBase64Strict(encodeBase64(b), "x");
        return back.ok && hex(back.value) === hex(b);
      }),
    );
  });

  it.each([
    [
      "'==' on a 32-byte value (RFC 9530 Appendix B misprint, 45 chars)",
      "RK/0qy18MlBSVnWgjwz6lZEWjP/lF5HF9bvEF8FabDg==",
    ],
    ["missing padding", "RK/0qy18MlBSVnWgjwz6lZEWjP/lF5HF9bvEF8FabDg"],
    ["three padding characters", "A==="],
    ["padding in the middle", "AQ==AQ=="],
    ["non-canonical trailing bits", "AR=="],
    ["url alphabet", "-_8="],
    ["whitespace", "AQID AQID"],
  ])("refuses %s", (_n, s) => {
    expect(decodeBase64Strict(s, "content-digest")).toMatchObject({
      ok: false,
      error: { code: "invalid_base64" },
    });
  });

  it("accepts the correct single '=' form of the same 32-byte value", () => {
    const r = decodeBase64Strict("RK/0qy18MlBSVnWgjwz6lZEWjP/lF5HF9bvEF8FabDg=", "x");
    expect(r.ok && r.value.length).toBe(32);
  });
});

describe("sha256", () => {
  const v = readFixtureJson<Record<string, string>>("vectors/rfc8037_ed25519_jws.json");

  it("hashes strings as UTF-8 (RFC 8037 A.3 thumbprint input)", () => {
    const canonical = v.A3_thumbprint_canonical_json as string;
    expect(hex(sha256(canonical))).toBe(v.A3_thumbprint_sha256_hex);
    expect(sha256Base64Url(new TextEncoder().encode(canonical))).toBe(v.A3_thumbprint_b64url);
  });

  it("hashes the empty input to the known value", () => {
    expect(encodeBase64(sha256(new Uint8Array(0)))).toBe("47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=");
  });
});
