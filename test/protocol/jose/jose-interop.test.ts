/**
 * The gateway checks Ed25519 JWS signatures with node:crypto directly (jws.ts says why); the
 * jose library is the independent reference: what either signs, the other must verify, and a
 * changed byte must fail both.
 */
import { createPublicKey, type KeyObject } from "node:crypto";
import { CompactSign, compactVerify, exportJWK, generateKeyPair } from "jose";
import { describe, expect, it } from "vitest";
import {
  decodeCompactJws,
  generateEd25519KeyPair,
  signCompactJws,
  verifyJwsSignature,
  type Ed25519PublicJwk,
} from "../../../src/protocol/jose/index.js";

const flip = (compact: string): string => {
  const [h, p, s] = compact.split(".") as [string, string, string];
  const c = s[10] === "A" ? "B" : "A";
  return `${h}.${p}.${s.slice(0, 10)}${c}${s.slice(11)}`;
};

describe("Ed25519 JWS interoperates with jose (RFC 7515, RFC 8037 §3.1)", () => {
  it("jose verifies what the gateway signs", async () => {
    const { publicJwk, privateKey } = generateEd25519KeyPair();
    const compact = await signCompactJws({ typ: "test+jwt" }, { sub: "a", n: 1 }, privateKey);
    const { payload } = await compactVerify(compact, await publicKeyOf(publicJwk));
    expect(JSON.parse(new TextDecoder().decode(payload))).toEqual({ sub: "a", n: 1 });
    await expect(compactVerify(flip(compact), await publicKeyOf(publicJwk))).rejects.toThrow();
  });

  it("the gateway verifies what jose signs, and refuses a changed signature or another key", async () => {
    const { publicKey, privateKey } = await generateKeyPair("EdDSA", { crv: "Ed25519" });
    const jwk = (await exportJWK(publicKey)) as Ed25519PublicJwk;
    const compact = await new CompactSign(new TextEncoder().encode(JSON.stringify({ iss: "x" })))
      .setProtectedHeader({ alg: "EdDSA" })
      .sign(privateKey);
    const decoded = decodeCompactJws(compact, "/jws");
    expect(decoded.ok).toBe(true);
    if (!decoded.ok) return;
    expect(await verifyJwsSignature(decoded.value, { kty: "OKP", crv: "Ed25519", x: jwk.x })).toBe(true);

    const changed = decodeCompactJws(flip(compact), "/jws");
    expect(changed.ok && (await verifyJwsSignature(changed.value, jwk))).toBe(false);
    const other = generateEd25519KeyPair().publicJwk;
    expect(await verifyJwsSignature(decoded.value, other)).toBe(false);
  });
});

function publicKeyOf(jwk: Ed25519PublicJwk): Promise<KeyObject> {
  return Promise.resolve(createPublicKey({ key: { ...jwk }, format: "jwk" }));
}
