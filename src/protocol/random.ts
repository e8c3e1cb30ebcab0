/**
 * Random identifiers and nonces (hold and booking ids, request nonces, idempotency keys) from
 * the operating system's CSPRNG, drawn from a pooled buffer: one randomFillSync per 4 KiB
 * instead of one randomBytes call, and its allocation, per identifier. The bytes are the same
 * CSPRNG output either way; each byte is handed out once.
 */
import { randomFillSync } from "node:crypto";

const POOL_SIZE = 4096;
const pool = Buffer.allocUnsafe(POOL_SIZE);
let offset = POOL_SIZE;

/** `bytes` fresh random bytes as base64url without padding. */
export function randomToken(bytes: number): string {
  if (!Number.isSafeInteger(bytes) || bytes < 1 || bytes > POOL_SIZE)
    throw new RangeError(`randomToken: 1 to ${POOL_SIZE} bytes, got ${bytes}`);
  if (offset + bytes > POOL_SIZE) {
    randomFillSync(pool);
    offset = 0;
  }
  const token = pool.toString("base64url", offset, offset + bytes);
  // Wiped as it is handed out, so no byte can be handed out twice or read back later.
  pool.fill(0, offset, offset + bytes);
  offset += bytes;
  return token;
}
