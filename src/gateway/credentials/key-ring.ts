/**
 * The vault's keys from configuration: `TOKEN_KEYS=kid1:base64key,kid2:base64key`.
 *
 * The first key encrypts; every key decrypts. Rotation is putting a new key first: records
 * written under an older key stay readable and are re-encrypted under the first one on their
 * next write (or all at once by `TokenVault.rotate()`); the old key can be dropped after that.
 * The key id is stored beside each ciphertext so decryption picks the right key without trial.
 *
 * Errors name the variable and the key id, never key material: a start error is printed.
 */
import { err, ok } from "../../protocol/result.js";
import type { Result } from "../../protocol/result.js";

export const TOKEN_KEYS_VARIABLE = "TOKEN_KEYS";
/** AES-256 needs exactly 32 bytes of key. */
const KEY_BYTES = 32;

export interface KeyRing {
  /** The key id new writes use. */
  readonly current: string;
  /** Every key, by id (the current one included). */
  key(kid: string): Buffer | undefined;
  readonly ids: readonly string[];
}

const KID = /^[A-Za-z0-9._-]{1,32}$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

export function parseKeyRing(
  raw: string | undefined,
  variable = TOKEN_KEYS_VARIABLE,
): Result<KeyRing, string> {
  if (raw === undefined || raw.trim() === "")
    return err(
      `${variable} is not set: give one or more "kid:base64key" entries (32-byte keys), newest first`,
    );
  const keys = new Map<string, Buffer>();
  const ids: string[] = [];
  for (const [i, entry] of raw.split(",").entries()) {
    const part = entry.trim();
    const colon = part.indexOf(":");
    if (colon < 0) return err(`${variable}: entry ${i + 1} must be "kid:base64key"`);
    const kid = part.slice(0, colon);
    const material = part.slice(colon + 1);
    if (!KID.test(kid))
      return err(`${variable}: entry ${i + 1}: the key id must be 1-32 of A-Z a-z 0-9 . _ -`);
    if (keys.has(kid)) return err(`${variable}: key id "${kid}" is given twice`);
    // Standard base64 only, checked before decoding: Buffer.from ignores what it cannot read.
    if (!BASE64.test(material)) return err(`${variable}: key "${kid}" is not base64`);
    const key = Buffer.from(material, "base64");
    if (key.length !== KEY_BYTES)
      return err(
        `${variable}: key "${kid}" must be ${KEY_BYTES} bytes, got ${key.length} (make one with: openssl rand -base64 32)`,
      );
    keys.set(kid, key);
    ids.push(kid);
  }
  const current = ids[0];
  if (current === undefined) return err(`${variable} holds no key`);
  return ok({ current, ids, key: (kid) => keys.get(kid) });
}
