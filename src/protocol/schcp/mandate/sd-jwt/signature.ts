/**
 * Signature checks of SchCP §3.4 with jose, with the one algorithm the key allows (§3.4 "a JWS
 * whose alg is not the key's is invalid (none always is)"). Hosts only: the agent SDK signs
 * with node:crypto (keys.ts) and so does not depend on jose.
 */
import { compactVerify, importJWK } from "jose";
import { BoundedMemo } from "../../../bounded-memo.js";
import type { ProfileJws } from "./jws.js";
import { algOf } from "./keys.js";
import type { PrincipalPublicJwk } from "./keys.js";

/**
 * True only if `jws` is signed by `jwk` with the key's own alg (EdDSA or ES256, raw r||s);
 * never throws. Remembered per (key, JWS): an agent presents one issuer JWT many times.
 */
export async function verifyProfileSignature(jws: ProfileJws, jwk: PrincipalPublicJwk): Promise<boolean> {
  const alg = algOf(jwk);
  if (jws.header.alg !== alg) return false;
  const memoKey = `${JSON.stringify(jwk)}\n${jws.compact}`;
  const known = verified.get(memoKey);
  if (known !== undefined) return known;
  let valid: boolean;
  try {
    const key = await importJWK({ ...jwk }, alg);
    await compactVerify(jws.compact, key, { algorithms: [alg] });
    valid = true;
  } catch {
    valid = false;
  }
  return verified.set(memoKey, valid);
}

const verified = new BoundedMemo<boolean>(4_096);
