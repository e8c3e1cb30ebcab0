import { describe, expect, it } from "vitest";
import { encodeBase64Url } from "../../../src/protocol/json/base64.js";
import { ed25519PrivateKeyFromJwk, generateEd25519KeyPair } from "../../../src/protocol/jose/jwk.js";
import type { Ed25519PrivateJwk, Ed25519PublicJwk } from "../../../src/protocol/jose/jwk.js";
import {
  decodeCompactJws,
  signCompactJws,
  signCompactJwsBytes,
  verifyJwsSignature,
} from "../../../src/protocol/jose/jws.js";
import type { DecodedJws } from "../../../src/protocol/jose/jws.js";
import { readFixtureJson } from "../../support/fixtures.js";

interface Rfc8037 {
  A1_private_jwk: Ed25519PrivateJwk;
  A2_public_jwk: Ed25519PublicJwk;
  A4_protected_header_json: string;
  A4_payload_utf8: string;
  A4_signing_input: string;
  A4_compact_jws: string;
}
const v = readFixtureJson<Rfc8037>("vectors/rfc8037_ed25519_jws.json");
const utf8 = (s: string) => new TextEncoder().encode(s);
const seg = (s: string) => encodeBase64Url(utf8(s));
const SIG = encodeBase64Url(new Uint8Array(64));

function decoded(compact: string): DecodedJws {
  const r = decodeCompactJws(compact, "/m");
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
}

describe("RFC 8037 A.4 / A.5", () => {
  it("reproduces the A.4 compact JWS byte for byte", async () => {
    const key = ed25519PrivateKeyFromJwk(v.A1_private_jwk);
    const compact = await signCompactJwsBytes(v.A4_protected_header_json, utf8(v.A4_payload_utf8), key);
    expect(compact).toBe(v.A4_compact_jws);
    expect(compact.startsWith(`${v.A4_signing_input}.`)).toBe(true);
  });

  it("verifies the A.4 signature with the A.2 key (its payload is text, so decode refuses it)", async () => {
    const [h, p, s] = v.A4_compact_jws.split(".") as [string, string, string];
    expect(decodeCompactJws(v.A4_compact_jws, "/m")).toMatchObject({
      ok: false,
      error: { field: "/m/payload" },
    });
    // Same bytes, decoded by hand: verifyJwsSignature only looks at compact and the key.
    const manual: DecodedJws = {
      header: { alg: "EdDSA" },
      payload: {},
      compact: v.A4_compact_jws,
      signingInput: `${h}.${p}`,
      signature: new Uint8Array(Buffer.from(s, "base64url")),
    };
    expect(await verifyJwsSignature(manual, v.A2_public_jwk)).toBe(true);
  });
});

describe("signCompactJws / decodeCompactJws / verifyJwsSignature", () => {
  const { publicJwk, privateKey } = generateEd25519KeyPair();

  it("round-trips, forcing alg EdDSA first and keeping the header order given", async () => {
    const compact = await signCompactJws(
      { typ: "schcp-mandate+jwt", kid: "k" },
      { iat: 1792000000, aud: "h" },
      privateKey,
    );
    const d = decoded(compact);
    expect(Object.keys(d.header)).toEqual(["alg", "typ", "kid"]);
    expect(d.payload).toEqual({ iat: 1792000000, aud: "h" });
    expect(d.signingInput).toBe(compact.split(".").slice(0, 2).join("."));
    expect(await verifyJwsSignature(d, publicJwk)).toBe(true);
  });

  it("keeps alg where the caller put it, and refuses another alg (programmer error)", async () => {
    const compact = await signCompactJws({ typ: "x", alg: "EdDSA" }, {}, privateKey);
    expect(Object.keys(decoded(compact).header)).toEqual(["typ", "alg"]);
    expect(() => signCompactJws({ alg: "ES256" }, {}, privateKey)).toThrow(TypeError);
  });

  it("returns false, never throws, for a tampered signature, payload or another key", async () => {
    const compact = await signCompactJws({}, { a: 1 }, privateKey);
    const [h, p, s] = compact.split(".") as [string, string, string];
    const sig = Buffer.from(s, "base64url");
    sig[0] = (sig[0] ?? 0) ^ 1;
    expect(await verifyJwsSignature(decoded(`${h}.${p}.${encodeBase64Url(sig)}`), publicJwk)).toBe(false);
    expect(await verifyJwsSignature(decoded(`${h}.${seg('{"a":2}')}.${s}`), publicJwk)).toBe(false);
    expect(await verifyJwsSignature(decoded(compact), generateEd25519KeyPair().publicJwk)).toBe(false);
    const badKey: Ed25519PublicJwk = { kty: "OKP", crv: "Ed25519", x: "AA" };
    expect(await verifyJwsSignature(decoded(compact), badKey)).toBe(false);
  });

  const H = seg('{"alg":"EdDSA"}');
  const P = seg('{"a":1}');
  it.each([
    ["alg none", `${seg('{"alg":"none"}')}.${P}.`, "/m/header/alg"],
    ["alg none with a signature", `${seg('{"alg":"none"}')}.${P}.${SIG}`, "/m/header/alg"],
    ["alg HS256", `${seg('{"alg":"HS256"}')}.${P}.${SIG}`, "/m/header/alg"],
    ["alg ES256", `${seg('{"alg":"ES256"}')}.${P}.${SIG}`, "/m/header/alg"],
    ["alg Ed25519 (not negotiated)", `${seg('{"alg":"Ed25519"}')}.${P}.${SIG}`, "/m/header/alg"],
    ["no alg", `${seg("{}")}.${P}.${SIG}`, "/m/header/alg"],
    ["a duplicate header member", `${seg('{"alg":"EdDSA","alg":"EdDSA"}')}.${P}.${SIG}`, "/m/header/alg"],
    ["a duplicate payload member", `${H}.${seg('{"a":1,"a":2}')}.${SIG}`, "/m/payload/a"],
    ["an escaped duplicate", `${H}.${seg('{"iss":1,"\\u0069ss":2}')}.${SIG}`, "/m/payload/iss"],
    [
      "invalid UTF-8 in the payload",
      `${H}.${encodeBase64Url(new Uint8Array([0x7b, 0xff, 0x7d]))}.${SIG}`,
      "/m/payload",
    ],
    ["crit", `${seg('{"alg":"EdDSA","crit":["exp"],"exp":1}')}.${P}.${SIG}`, "/m/header/crit"],
    ["empty crit", `${seg('{"alg":"EdDSA","crit":[]}')}.${P}.${SIG}`, "/m/header/crit"],
    ["b64 false", `${seg('{"alg":"EdDSA","b64":false}')}.${P}.${SIG}`, "/m/header/b64"],
    ["a payload array", `${H}.${seg("[1]")}.${SIG}`, "/m/payload"],
    ["a header that is not JSON", `${seg("alg")}.${P}.${SIG}`, "/m/header"],
    ["two segments", `${H}.${P}`, "/m"],
    ["four segments", `${H}.${P}.${SIG}.${SIG}`, "/m"],
    ["JSON serialisation", JSON.stringify({ payload: P, signature: SIG }), "/m"],
    ["a padded segment", `${H}.${P}=.${SIG}`, "/m/payload"],
    ["a short signature", `${H}.${P}.${SIG.slice(0, 40)}`, "/m/signature"],
    ["whitespace", `${H}.${P}.${SIG}\n`, "/m/signature"],
  ])("decode refuses %s", (_n, compact, field) => {
    expect(decodeCompactJws(compact, "/m")).toMatchObject({ ok: false, error: { field } });
  });

  it("decode refuses a non-string", () => {
    expect(decodeCompactJws(42, "/m")).toMatchObject({
      ok: false,
      error: { code: "invalid_jws", field: "/m" },
    });
  });
});
