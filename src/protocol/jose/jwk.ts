/**
 * Ed25519 JWKs (RFC 8037) and RFC 7638 thumbprints, as SchCP uses them (SchCP §3.2, §3.4):
 * agent, principal and host keys are OKP/Ed25519, and a key is named by its thumbprint.
 */
import { createPrivateKey, createPublicKey, generateKeyPairSync } from "node:crypto";
import type { KeyObject } from "node:crypto";
import { decodeBase64Url, sha256Base64Url } from "../json/base64.js";
import { childPointer, err, fieldError, ok } from "../result.js";
import type { Result } from "../result.js";
import { BoundedMemo } from "../bounded-memo.js";

export interface Ed25519PublicJwk {
  kty: "OKP";
  crv: "Ed25519";
  x: string;
  kid?: string;
}

export interface Ed25519PrivateJwk extends Ed25519PublicJwk {
  d: string;
}

export interface ParseJwkOptions {
  /** Accept a string `kid` (SchCP-Agent-Key allows one, SchCP §3.2). */
  allowKid?: boolean;
  /** Accept `use: "sig"`, the only use an Ed25519 signing key can have. */
  allowUse?: boolean;
}

/**
 * A closed Ed25519 public JWK: exactly kty "OKP", crv "Ed25519" and x (32 bytes, strict
 * base64url), plus kid/use only when allowed. A private `d` gets its own refusal, since
 * sending it means the private key has leaked (SchCP §3.2: "a private d ... is refused").
 */
export function parseEd25519PublicJwk(
  value: unknown,
  field: string,
  opts: ParseJwkOptions = {},
): Result<Ed25519PublicJwk> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return err(fieldError("invalid_type", field, "a JWK must be a JSON object"));
  }
  const jwk = value as Record<string, unknown>;
  if (Object.hasOwn(jwk, "d")) {
    return err(
      fieldError("private_key", childPointer(field, "d"), "a private key (member d) must never be sent"),
    );
  }
  const allowed = new Set(["kty", "crv", "x"]);
  if (opts.allowKid === true) allowed.add("kid");
  if (opts.allowUse === true) allowed.add("use");
  for (const name of Object.keys(jwk)) {
    if (!allowed.has(name)) {
      return err(
        fieldError(
          "unknown_member",
          childPointer(field, name),
          `member "${name}" is not allowed in this JWK`,
        ),
      );
    }
  }
  if (jwk.kty !== "OKP")
    return err(fieldError("invalid_value", childPointer(field, "kty"), 'kty must be "OKP"'));
  if (jwk.crv !== "Ed25519") {
    return err(fieldError("invalid_value", childPointer(field, "crv"), 'crv must be "Ed25519"'));
  }
  const xField = childPointer(field, "x");
  if (typeof jwk.x !== "string") return err(fieldError("invalid_value", xField, "x must be a string"));
  const x = decodeBase64Url(jwk.x, xField);
  if (!x.ok) return x;
  if (x.value.length !== 32) return err(fieldError("invalid_value", xField, "x must encode 32 bytes"));
  if (jwk.use !== undefined && jwk.use !== "sig") {
    return err(fieldError("invalid_value", childPointer(field, "use"), 'use must be "sig"'));
  }
  const result: Ed25519PublicJwk = { kty: "OKP", crv: "Ed25519", x: jwk.x };
  if (jwk.kid !== undefined) {
    if (typeof jwk.kid !== "string") {
      return err(fieldError("invalid_value", childPointer(field, "kid"), "kid must be a string"));
    }
    result.kid = jwk.kid;
  }
  return ok(result);
}

/** RFC 7638 §3.2 required members per key type, already in lexicographic order. */
const THUMBPRINT_MEMBERS: Readonly<Record<string, readonly string[]>> = {
  OKP: ["crv", "kty", "x"],
  EC: ["crv", "kty", "x", "y"],
  RSA: ["e", "kty", "n"],
  oct: ["k", "kty"],
};

/**
 * RFC 7638 JWK thumbprint (SHA-256, base64url): the hash of the JSON object of the
 * required members only, sorted, without whitespace. Meant for a JWK that was already
 * parsed; a missing required member is a programmer error and throws.
 */
export function jwkThumbprint(key: Ed25519PublicJwk | Readonly<Record<string, unknown>>): string {
  const jwk = key as Readonly<Record<string, unknown>>;
  const kty = jwk.kty;
  const members = typeof kty === "string" ? THUMBPRINT_MEMBERS[kty] : undefined;
  if (members === undefined) throw new TypeError(`jwkThumbprint: unsupported kty ${String(kty)}`);
  const canonical: Record<string, string> = {};
  for (const name of members) {
    const v = jwk[name];
    if (typeof v !== "string")
      throw new TypeError(`jwkThumbprint: ${String(kty)} JWK lacks string member ${name}`);
    canonical[name] = v;
  }
  // Members are base64url or fixed names, so JSON.stringify's escaping matches RFC 7638 §3.3.
  const memoKey = JSON.stringify(canonical);
  // Every signed request asks for its agent key's thumbprint: remembered, bounded.
  return thumbprints.get(memoKey) ?? thumbprints.set(memoKey, sha256Base64Url(memoKey));
}

const thumbprints = new BoundedMemo<string>(10_000);

export const PRINCIPAL_URN_PREFIX = "urn:schcp:principal:jwk-thumbprint:";

/** The self-certifying principal id of SchCP §3.3 (mandate iss). */
export function principalUrn(thumbprint: string): string {
  return PRINCIPAL_URN_PREFIX + thumbprint;
}

/** Imported public keys by x: agents, key apps and hosts sign many requests with one key. */
const publicKeys = new Map<string, KeyObject>();
const MAX_CACHED_KEYS = 10_000;

/** The KeyObject of a public JWK (imported once per x, then cached; throws for a bad x). */
export function ed25519PublicKeyFromJwk(jwk: Ed25519PublicJwk): KeyObject {
  const id = `${jwk.kty}:${jwk.crv}:${jwk.x}`;
  const cached = publicKeys.get(id);
  if (cached !== undefined) return cached;
  const key = createPublicKey({ key: { kty: jwk.kty, crv: jwk.crv, x: jwk.x }, format: "jwk" });
  // Oldest first out: a Map iterates in insertion order.
  if (publicKeys.size >= MAX_CACHED_KEYS) publicKeys.delete(publicKeys.keys().next().value as string);
  publicKeys.set(id, key);
  return key;
}

export function ed25519PrivateKeyFromJwk(jwk: Ed25519PrivateJwk): KeyObject {
  return createPrivateKey({ key: { kty: jwk.kty, crv: jwk.crv, x: jwk.x, d: jwk.d }, format: "jwk" });
}

/** A fresh key pair, for agents, hosts, key apps and tests. */
export function generateEd25519KeyPair(): { publicJwk: Ed25519PublicJwk; privateKey: KeyObject } {
  const { publicKey, privateKey } = generateKeyPairSync("ed25519");
  const exported = publicKey.export({ format: "jwk" });
  if (typeof exported.x !== "string") throw new Error("node:crypto exported an Ed25519 JWK without x");
  return { publicJwk: { kty: "OKP", crv: "Ed25519", x: exported.x }, privateKey };
}

/** The public JWK of an Ed25519 private key (for signers that hold only the KeyObject). */
export function ed25519PublicJwkOf(privateKey: KeyObject): Ed25519PublicJwk {
  const exported = createPublicKey(privateKey).export({ format: "jwk" });
  if (exported.crv !== "Ed25519" || typeof exported.x !== "string") {
    throw new TypeError("ed25519PublicJwkOf: not an Ed25519 key");
  }
  return { kty: "OKP", crv: "Ed25519", x: exported.x };
}
