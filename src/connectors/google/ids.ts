/**
 * The Google event id the gateway chooses for its own event (events.insert `id`). Google
 * allows base32hex characters only (lowercase a–v and 0–9, RFC 2938 §3.1.2), 5 to 1024 of them,
 * unique per calendar. The gateway's eventId can hold anything, so the id is the base32hex of
 * its SHA-256: deterministic (a retried create names the same event), 52 characters, and
 * collision-free in practice. Written by hand: Node has no base32hex, and it is ten lines.
 */
import { createHash } from "node:crypto";

const ALPHABET = "0123456789abcdefghijklmnopqrstuv";
const VALID = /^[0-9a-v]{5,1024}$/;

export function base32hex(bytes: Uint8Array): string {
  let out = "";
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = (buffer << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += ALPHABET[(buffer >>> (bits - 5)) & 31];
      bits -= 5;
    }
    buffer &= (1 << bits) - 1;
  }
  if (bits > 0) out += ALPHABET[(buffer << (5 - bits)) & 31];
  return out;
}

/** Google's id for the gateway's event `eventId` (same input, same id). */
export function googleEventId(eventId: string): string {
  return base32hex(createHash("sha256").update(`booking-gateway:event:${eventId}`, "utf8").digest());
}

export const isGoogleEventId = (id: string): boolean => VALID.test(id);
