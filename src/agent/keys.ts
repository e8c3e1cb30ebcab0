/**
 * The agent's own Ed25519 key (SchCP §3.2): it signs every request to a host endpoint, its
 * RFC 7638 thumbprint is the signature's keyid, and a mandate binds it through cnf.jkt
 * (§3.3 check 4). A principal's key in a key app is the same kind of key.
 */
import { createPublicKey } from "node:crypto";
import type { KeyObject } from "node:crypto";
import {
  ed25519PrivateKeyFromJwk,
  ed25519PublicJwkOf,
  generateEd25519KeyPair,
  jwkThumbprint,
  parseEd25519PublicJwk,
} from "../protocol/jose/index.js";
import type { Ed25519PrivateJwk, Ed25519PublicJwk } from "../protocol/jose/index.js";
import { decodeBase64Url } from "../protocol/json/index.js";
import { childPointer, err, fieldError, ok } from "../protocol/result.js";
import type { Result } from "../protocol/result.js";

export interface AgentKey {
  readonly privateKey: KeyObject;
  readonly publicJwk: Ed25519PublicJwk;
  /** RFC 7638 thumbprint: the keyid of each request (§3.2) and what cnf.jkt names (§3.3). */
  readonly thumbprint: string;
}

/** A fresh key. Also what a key app uses for a principal key. */
export function createAgentKey(): AgentKey {
  const { privateKey, publicJwk } = generateEd25519KeyPair();
  return { privateKey, publicJwk, thumbprint: jwkThumbprint(publicJwk) };
}

/**
 * A key from a stored private JWK ({kty: "OKP", crv: "Ed25519", x, d}, kid allowed). Refuses
 * anything else, including a d that does not belong to x: a key saved with the wrong public
 * half would sign requests whose keyid names someone else's key.
 */
export function agentKeyFromJwk(jwk: unknown, field = ""): Result<AgentKey> {
  if (typeof jwk !== "object" || jwk === null || Array.isArray(jwk)) {
    return err(fieldError("invalid_type", field, "a private JWK must be a JSON object"));
  }
  const { d, ...rest } = jwk as Record<string, unknown>;
  const dField = childPointer(field, "d");
  if (typeof d !== "string") return err(fieldError("invalid_value", dField, "d must be a string"));
  const dBytes = decodeBase64Url(d, dField);
  if (!dBytes.ok) return dBytes;
  if (dBytes.value.length !== 32) return err(fieldError("invalid_value", dField, "d must encode 32 bytes"));
  const pub = parseEd25519PublicJwk(rest, field, { allowKid: true });
  if (!pub.ok) return pub;

  let privateKey: KeyObject;
  try {
    privateKey = ed25519PrivateKeyFromJwk({ ...pub.value, d });
  } catch {
    return err(fieldError("invalid_value", dField, "not a usable Ed25519 private key"));
  }
  const derived = ed25519PublicJwkOf(privateKey);
  if (derived.x !== pub.value.x) {
    return err(fieldError("key_mismatch", childPointer(field, "x"), "x is not the public key of d"));
  }
  const publicJwk: Ed25519PublicJwk = { kty: "OKP", crv: "Ed25519", x: pub.value.x };
  return ok({ privateKey, publicJwk, thumbprint: jwkThumbprint(publicJwk) });
}

/** The private JWK to store a key with (keep it secret: it is the agent's identity). */
export function exportAgentKeyJwk(key: AgentKey): Ed25519PrivateJwk {
  const exported = key.privateKey.export({ format: "jwk" });
  if (typeof exported.d !== "string") throw new TypeError("exportAgentKeyJwk: not a private key");
  // The public half is re-derived, so an export can never pair d with another x.
  const x = createPublicKey(key.privateKey).export({ format: "jwk" }).x;
  if (typeof x !== "string") throw new TypeError("exportAgentKeyJwk: not an Ed25519 key");
  return { kty: "OKP", crv: "Ed25519", x, d: exported.d };
}
