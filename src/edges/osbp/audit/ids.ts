/**
 * Audit event ids (OSBP "Audit": "aud_..."): "aud_" + 26 Crockford base32 characters, a
 * 48-bit millisecond timestamp then 80 random bits (the ULID layout, written here because it
 * is twenty lines and the log needs nothing else from a ULID package). Within one generator
 * ids are strictly increasing: in the same millisecond, or when the clock steps back, the
 * previous id's random part is incremented, so ids sort in the order they were issued, which
 * is also the order of the lines in the log.
 */
import { randomBytes } from "node:crypto";
import type { Clock } from "../../../protocol/clock.js";

const ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
const RANDOM_BITS = 80n;
const RANDOM_LIMIT = 1n << RANDOM_BITS;
const MAX_TIME = 2 ** 48 - 1;

export const AUDIT_ID_PATTERN = /^aud_[0-9A-HJKMNP-TV-Z]{26}$/;

function base32(value: bigint, length: number): string {
  let out = "";
  for (let i = 0; i < length; i++) {
    out = ALPHABET.charAt(Number(value & 31n)) + out;
    value >>= 5n;
  }
  return out;
}

/** A generator of monotonic audit ids stamped with `clock.now()` (epoch ms). */
export function createAuditIdGenerator(clock: Clock): () => string {
  let lastTime = -1;
  let lastRandom = 0n;
  return () => {
    const time = Math.min(Math.max(Math.floor(clock.now()), 0), MAX_TIME);
    if (time > lastTime) {
      lastTime = time;
      lastRandom = BigInt(`0x${randomBytes(10).toString("hex")}`);
    } else {
      lastRandom += 1n;
      // 2^80 ids in one millisecond cannot happen; wrap into the next millisecond regardless.
      if (lastRandom >= RANDOM_LIMIT) {
        lastTime = Math.min(lastTime + 1, MAX_TIME);
        lastRandom = 0n;
      }
    }
    return `aud_${base32(BigInt(lastTime), 10)}${base32(lastRandom, 16)}`;
  };
}
