/**
 * Compact JWS, Ed25519 only (SchCP §3.3 mandates, §5 offers/receipts, §5.12 contracts).
 *
 * SchCP §3.4: the algorithm follows from the key and is never negotiated, so alg must be
 * "EdDSA" and "none" never is. Header and payload are parsed with the strict JSON parser
 * (SchCP §3.1: a duplicate member makes a signed JSON invalid), so every reader of the
 * same compact string sees the same claims. `crit` is refused outright: no extension is
 * understood, and RFC 7515 §4.1.11 says a verifier must reject what it does not understand.
 */
import { sign, verify } from "node:crypto";
import type { KeyObject } from "node:crypto";
import { BoundedMemo } from "../bounded-memo.js";
import { decodeBase64Url, encodeBase64Url } from "../json/base64.js";
import { parseStrictJson } from "../json/strict-json.js";
import { childPointer, err, fieldError, ok } from "../result.js";
import type { Result } from "../result.js";
import { ed25519PublicKeyFromJwk } from "./jwk.js";
import type { Ed25519PublicJwk } from "./jwk.js";

export interface DecodedJws {
  header: Record<string, unknown>;
  payload: Record<string, unknown>;
  compact: string;
  /** base64url(header) "." base64url(payload): the bytes the signature covers. */
  signingInput: string;
  signature: Uint8Array;
}

/**
 * Structural decoding without verification. Field names: `field` for the whole JWS,
 * `field/header/...` and `field/payload/...` for members inside it.
 */
export function decodeCompactJws(compact: unknown, field: string): Result<DecodedJws> {
  if (typeof compact !== "string")
    return err(fieldError("invalid_jws", field, "a compact JWS must be a string"));
  const parts = compact.split(".");
  if (parts.length !== 3) {
    return err(fieldError("invalid_jws", field, "a compact JWS has exactly three base64url segments"));
  }
  const [h, p, s] = parts as [string, string, string];
  const headerField = childPointer(field, "header");
  const payloadField = childPointer(field, "payload");
  const header = decodeJsonObject(h, headerField);
  if (!header.ok) return header;
  const payload = decodeJsonObject(p, payloadField);
  if (!payload.ok) return payload;
  const signature = decodeBase64Url(s, childPointer(field, "signature"));
  if (!signature.ok) return signature;

  const alg = header.value.alg;
  if (alg !== "EdDSA") {
    return err(fieldError("unsupported_alg", childPointer(headerField, "alg"), 'alg must be "EdDSA"'));
  }
  if (Object.hasOwn(header.value, "crit")) {
    return err(
      fieldError("unsupported_crit", childPointer(headerField, "crit"), "no critical extension is supported"),
    );
  }
  if (Object.hasOwn(header.value, "b64") && header.value.b64 !== true) {
    return err(
      fieldError("unsupported_b64", childPointer(headerField, "b64"), "unencoded payloads are not supported"),
    );
  }
  if (signature.value.length !== 64) {
    return err(
      fieldError("invalid_jws", childPointer(field, "signature"), "an Ed25519 signature is 64 bytes"),
    );
  }
  return ok({
    header: header.value,
    payload: payload.value,
    compact,
    signingInput: `${h}.${p}`,
    signature: signature.value,
  });
}

function decodeJsonObject(segment: string, field: string): Result<Record<string, unknown>> {
  const bytes = decodeBase64Url(segment, field);
  if (!bytes.ok) return bytes;
  const json = parseStrictJson(bytes.value, field);
  if (!json.ok) return json;
  const value = json.value;
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return err(fieldError("invalid_jws", field, "must be a JSON object"));
  }
  return ok(value as Record<string, unknown>);
}

/**
 * True only if the Ed25519 signature verifies with this key; never throws.
 *
 * decodeCompactJws has already done everything JWS verification adds to the signature check
 * (three segments, strict JSON, alg "EdDSA" only, no crit, b64, a 64-byte signature), so what
 * remains is RFC 8037 §3.1: Ed25519 over the ASCII signing input. Done here with node:crypto
 * and a cached key, synchronously: jose would re-import the key into WebCrypto and verify on
 * the thread pool for every mandate, offer and receipt, the gateway's hottest path.
 */
export function verifyJwsSignature(decoded: DecodedJws, jwk: Ed25519PublicJwk): Promise<boolean> {
  // A pure function of (key, compact): remembered, since one mandate is checked per request.
  // Keyed by what is verified (not decoded.compact), so a hand-built DecodedJws cannot alias.
  const key = `${jwk.x}\n${decoded.signingInput}\n${Buffer.from(decoded.signature).toString("base64url")}`;
  const known = verified.get(key);
  if (known !== undefined) return Promise.resolve(known);
  let valid: boolean;
  try {
    const input = Buffer.from(decoded.signingInput, "ascii");
    valid = verify(null, input, ed25519PublicKeyFromJwk(jwk), decoded.signature);
  } catch {
    valid = false;
  }
  return Promise.resolve(verified.set(key, valid));
}

const verified = new BoundedMemo<boolean>(4_096);

/**
 * Signs a JSON header and payload. alg "EdDSA" is forced (placed first when absent);
 * other members keep the order given. The payload is serialised with JSON.stringify:
 * the signed bytes are what they are, and verifiers hash the compact form they received.
 */
export function signCompactJws(
  header: Record<string, unknown>,
  payload: Record<string, unknown>,
  privateKey: KeyObject,
): Promise<string> {
  if (header.alg !== undefined && header.alg !== "EdDSA") {
    throw new TypeError(`signCompactJws: alg is always EdDSA, not ${JSON.stringify(header.alg)}`);
  }
  const fullHeader = Object.hasOwn(header, "alg") ? header : { alg: "EdDSA", ...header };
  return signCompactJwsBytes(
    JSON.stringify(fullHeader),
    new TextEncoder().encode(JSON.stringify(payload)),
    privateKey,
  );
}

/** Lower level: the exact header JSON text and payload bytes (e.g. RFC 8037 A.4's text payload). */
export function signCompactJwsBytes(
  headerJson: string,
  payloadBytes: Uint8Array,
  privateKey: KeyObject,
): Promise<string> {
  if (privateKey.asymmetricKeyType !== "ed25519" || privateKey.type !== "private") {
    throw new TypeError("signCompactJwsBytes: an Ed25519 private key is required");
  }
  const signingInput = `${encodeBase64Url(new TextEncoder().encode(headerJson))}.${encodeBase64Url(payloadBytes)}`;
  const signature = sign(null, Buffer.from(signingInput, "ascii"), privateKey);
  return Promise.resolve(`${signingInput}.${encodeBase64Url(signature)}`);
}
