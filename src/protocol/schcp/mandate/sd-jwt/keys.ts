/**
 * Principal keys of the SD-JWT VC profile (SchCP §3.4 "Keys"): Ed25519 (EdDSA) or P-256
 * (ES256, raw r||s). The algorithm follows from the key and is never negotiated; RFC 7638
 * thumbprints cover {crv,kty,x} for OKP keys and {crv,kty,x,y} for EC keys (jose/jwk.ts).
 * Everything else SchCP signs stays Ed25519 only, so these types live in this profile's folder.
 */
import { createPublicKey, sign as nodeSign } from "node:crypto";
import type { KeyObject } from "node:crypto";
import { parseEd25519PublicJwk } from "../../../jose/jwk.js";
import type { Ed25519PublicJwk } from "../../../jose/jwk.js";
import { decodeBase64Url, encodeBase64Url } from "../../../json/base64.js";
import { childPointer, err, fieldError, ok } from "../../../result.js";
import type { Result } from "../../../result.js";

export type P256PublicJwk = {
  kty: "EC";
  crv: "P-256";
  x: string;
  y: string;
};

/** A principal key as §3.4 allows it in the issuer JWT's jwk header. */
export type PrincipalPublicJwk = Ed25519PublicJwk | P256PublicJwk;

export type SdJwtAlg = "EdDSA" | "ES256";

/** §3.4: "The algorithm follows from the key". */
export function algOf(jwk: PrincipalPublicJwk): SdJwtAlg {
  return jwk.kty === "OKP" ? "EdDSA" : "ES256";
}

/**
 * A closed public JWK of either kind. Ed25519 as everywhere (kty, crv, x); P-256 with
 * exactly kty "EC", crv "P-256", x and y of 32 bytes each. A private d is refused, and so
 * is any other member: a header key with extra members is one two verifiers may read apart.
 */
export function parsePrincipalJwk(value: unknown, field: string): Result<PrincipalPublicJwk> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return err(fieldError("invalid_type", field, "a JWK must be a JSON object"));
  }
  const jwk = value as Record<string, unknown>;
  if (jwk.kty !== "EC") return parseEd25519PublicJwk(value, field);
  if (Object.hasOwn(jwk, "d")) {
    return err(
      fieldError("private_key", childPointer(field, "d"), "a private key (member d) must never be sent"),
    );
  }
  for (const name of Object.keys(jwk)) {
    if (!["kty", "crv", "x", "y"].includes(name)) {
      return err(
        fieldError(
          "unknown_member",
          childPointer(field, name),
          `member "${name}" is not allowed in this JWK`,
        ),
      );
    }
  }
  if (jwk.crv !== "P-256") {
    return err(fieldError("invalid_value", childPointer(field, "crv"), 'an EC principal key is crv "P-256"'));
  }
  for (const c of ["x", "y"] as const) {
    const at = childPointer(field, c);
    const v = jwk[c];
    if (typeof v !== "string") return err(fieldError("invalid_value", at, `${c} must be a string`));
    const bytes = decodeBase64Url(v, at);
    if (!bytes.ok) return bytes;
    if (bytes.value.length !== 32) return err(fieldError("invalid_value", at, `${c} must encode 32 bytes`));
  }
  try {
    // A point that is not on the curve is no key at all.
    createPublicKey({
      key: { kty: "EC", crv: "P-256", x: jwk.x as string, y: jwk.y as string },
      format: "jwk",
    });
  } catch {
    return err(fieldError("invalid_value", field, "not a point on P-256"));
  }
  return ok({ kty: "EC", crv: "P-256", x: jwk.x as string, y: jwk.y as string });
}

/** A key that signs in this profile: the principal's (Ed25519 or P-256) or the agent's (Ed25519). */
export interface SdJwtSigningKey {
  readonly privateKey: KeyObject;
  readonly publicJwk: PrincipalPublicJwk;
}

/**
 * Signs a compact JWS with alg per the key (§3.4); a header alg, when given, replaces it
 * (tests forge mismatched algorithms with it). ES256 signatures are JWS's raw r||s
 * (RFC 7518 §3.4), which node:crypto gives with dsaEncoding "ieee-p1363". The SDK signs
 * with node:crypto, as jose/jws.ts does, so the agent package needs no JOSE dependency;
 * hosts verify with jose (verify-jws.ts), an independent implementation of the same rules.
 */
export function signJws(
  header: Record<string, unknown>,
  payload: Record<string, unknown>,
  key: SdJwtSigningKey,
): string {
  const alg = algOf(key.publicJwk);
  const h = encodeBase64Url(new TextEncoder().encode(JSON.stringify({ alg, ...header })));
  const p = encodeBase64Url(new TextEncoder().encode(JSON.stringify(payload)));
  const input = Buffer.from(`${h}.${p}`, "ascii");
  const signature =
    alg === "EdDSA"
      ? nodeSign(null, input, key.privateKey)
      : nodeSign("sha256", input, { key: key.privateKey, dsaEncoding: "ieee-p1363" });
  return `${h}.${p}.${encodeBase64Url(signature)}`;
}
