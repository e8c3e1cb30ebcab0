/**
 * The operator API's credential: `Authorization: Bearer <operator credential>`, compared in
 * constant time. An agent's request signature is never a credential here (the host's side is
 * reached only by the operator), so a signed request without the bearer is simply 401.
 */
import { createHash, timingSafeEqual } from "node:crypto";

const BEARER = /^Bearer ([A-Za-z0-9\-._~+/]+=*)$/;

/**
 * Hashing both sides first gives equal-length inputs, so timingSafeEqual neither throws nor
 * leaks the expected credential's length.
 */
export function operatorCredentialMatches(authorization: string | null, expected: string): boolean {
  if (authorization === null || expected === "") return false;
  const m = BEARER.exec(authorization);
  if (m === null) return false;
  const digest = (s: string) => createHash("sha256").update(s, "utf8").digest();
  return timingSafeEqual(digest(m[1] ?? ""), digest(expected));
}
