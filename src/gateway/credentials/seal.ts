/**
 * AES-256-GCM sealing of one token record (node:crypto, the runtime's own well-kept AEAD).
 *
 * - A fresh random 96-bit IV per write: GCM's recommended nonce length, and a random one never
 *   repeats under a key in any realistic number of writes (NIST SP 800-38D §8.2.2).
 * - The key id and IV are stored beside the ciphertext and its 128-bit tag; the kid picks the
 *   key on read, so several keys can be live during a rotation.
 * - The host id is additional authenticated data: a record copied under another host's name
 *   fails authentication instead of handing one business's grant to another. The kid and the
 *   format version are bound too, so neither can be swapped.
 *
 * Any failure to open (tampered bytes, wrong host, unknown key) is one error that says which
 * host and key id, and nothing about the content.
 */
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import type { KeyRing } from "./key-ring.js";

const ALGORITHM = "aes-256-gcm";
const IV_BYTES = 12;
const TAG_BYTES = 16;
const FORMAT = 1;

/** What a store keeps: no plaintext, only what decryption needs besides the key. */
export interface SealedRecord {
  readonly v: typeof FORMAT;
  readonly kid: string;
  readonly iv: string;
  readonly ct: string;
  readonly tag: string;
}

export class VaultOpenError extends Error {
  constructor(
    readonly hostId: string,
    readonly kid: string | undefined,
    why: string,
  ) {
    super(`token record of host "${hostId}" cannot be opened: ${why}`);
    this.name = "VaultOpenError";
  }
}

const aadOf = (hostId: string, kid: string): Buffer =>
  Buffer.from(`booking-gateway token record v${FORMAT}\u0000${kid}\u0000${hostId}`, "utf8");

export function seal(ring: KeyRing, hostId: string, plaintext: string): SealedRecord {
  const kid = ring.current;
  const key = ring.key(kid);
  if (key === undefined) throw new Error(`key ring has no key "${kid}"`);
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv(ALGORITHM, key, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(aadOf(hostId, kid));
  const ct = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  return {
    v: FORMAT,
    kid,
    iv: iv.toString("base64url"),
    ct: ct.toString("base64url"),
    tag: cipher.getAuthTag().toString("base64url"),
  };
}

export function open(ring: KeyRing, hostId: string, sealed: unknown): string {
  const s = sealed as Partial<SealedRecord> | null;
  if (typeof s !== "object" || s === null || s.v !== FORMAT)
    throw new VaultOpenError(hostId, undefined, "not a sealed record");
  const { kid, iv, ct, tag } = s;
  if (typeof kid !== "string" || typeof iv !== "string" || typeof ct !== "string" || typeof tag !== "string")
    throw new VaultOpenError(hostId, undefined, "not a sealed record");
  const key = ring.key(kid);
  if (key === undefined) throw new VaultOpenError(hostId, kid, `key id "${kid}" is not in TOKEN_KEYS`);
  const ivBytes = Buffer.from(iv, "base64url");
  const tagBytes = Buffer.from(tag, "base64url");
  if (ivBytes.length !== IV_BYTES || tagBytes.length !== TAG_BYTES)
    throw new VaultOpenError(hostId, kid, "IV or tag has the wrong length");
  try {
    const decipher = createDecipheriv(ALGORITHM, key, ivBytes, { authTagLength: TAG_BYTES });
    decipher.setAAD(aadOf(hostId, kid));
    decipher.setAuthTag(tagBytes);
    return Buffer.concat([decipher.update(Buffer.from(ct, "base64url")), decipher.final()]).toString("utf8");
  } catch {
    throw new VaultOpenError(hostId, kid, "authentication failed (altered, or another host's record)");
  }
}
