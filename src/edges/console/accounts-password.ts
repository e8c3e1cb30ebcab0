/**
 * Owner passwords: scrypt from node:crypto with a per-account random salt. The
 * stored string records its own parameters — `scrypt$<N>$<r>$<p>$<salt>$<hash>`, base64url — so
 * raising the cost later still verifies every older hash. Verification compares in constant
 * time; an unknown email is checked against a throwaway hash so it costs what a wrong password
 * costs (accounts.ts).
 */
import { randomBytes, scrypt as scryptCb, timingSafeEqual, type ScryptOptions } from "node:crypto";

export interface ScryptParams {
  readonly N: number;
  readonly r: number;
  readonly p: number;
}

/**
 * One of OWASP's equivalent scrypt floors (N=2^15, r=8, p=3): 32 MiB per check rather than the
 * 128 MiB of N=2^17, p=1, so a burst of sign-ins does not exhaust a small container's memory.
 */
export const DEFAULT_SCRYPT: ScryptParams = { N: 2 ** 15, r: 8, p: 3 };

export const MIN_PASSWORD_LENGTH = 12;
/** Long passphrases are welcome; a megabyte "password" is not worth hashing. */
const MAX_PASSWORD_LENGTH = 1024;

const KEY_LEN = 32;

function scrypt(password: string, salt: Buffer, params: ScryptParams): Promise<Buffer> {
  const opts: ScryptOptions = {
    N: params.N,
    r: params.r,
    p: params.p,
    maxmem: 128 * params.N * params.r * params.p + 16 * 1024 * 1024,
  };
  return new Promise((resolve, reject) =>
    scryptCb(password.normalize("NFC"), salt, KEY_LEN, opts, (err, key) =>
      err ? reject(err) : resolve(key),
    ),
  );
}

export async function hashPassword(password: string, params: ScryptParams = DEFAULT_SCRYPT): Promise<string> {
  const salt = randomBytes(16);
  const key = await scrypt(password, salt, params);
  return ["scrypt", params.N, params.r, params.p, salt.toString("base64url"), key.toString("base64url")].join(
    "$",
  );
}

/** Parameters a stored hash may name: bounded, so a tampered record cannot make a check run for minutes. */
function parse(stored: string): { params: ScryptParams; salt: Buffer; key: Buffer } | undefined {
  const parts = stored.split("$");
  if (parts.length !== 6 || parts[0] !== "scrypt") return undefined;
  const [N, r, p] = parts.slice(1, 4).map(Number) as [number, number, number];
  const pow2 = Number.isInteger(N) && N >= 2 && N <= 2 ** 20 && (N & (N - 1)) === 0;
  if (!pow2 || !Number.isInteger(r) || r < 1 || r > 32 || !Number.isInteger(p) || p < 1 || p > 16)
    return undefined;
  const salt = Buffer.from(parts[4] ?? "", "base64url");
  const key = Buffer.from(parts[5] ?? "", "base64url");
  if (salt.length < 16 || key.length !== KEY_LEN) return undefined;
  return { params: { N, r, p }, salt, key };
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parsed = parse(stored);
  if (parsed === undefined || password.length > MAX_PASSWORD_LENGTH) return false;
  const key = await scrypt(password, parsed.salt, parsed.params);
  return timingSafeEqual(key, parsed.key);
}

/** Why a new password is refused (undefined: acceptable). */
export function passwordProblem(password: string, confirm: string): string | undefined {
  if ([...password].length < MIN_PASSWORD_LENGTH)
    return `Choose a password of at least ${MIN_PASSWORD_LENGTH} characters.`;
  if (password.length > MAX_PASSWORD_LENGTH)
    return `Choose a password under ${MAX_PASSWORD_LENGTH} characters.`;
  if (password !== confirm) return "The two passwords are not the same.";
  return undefined;
}
