/**
 * The local payload hash behind booking.create idempotency and approval binding (OSBP
 * "booking.create": "approval and verification_code are transient fields and are excluded
 * from the local payload hash").
 */
import { createHash } from "node:crypto";
import type { BookingCreateInput } from "./types.js";

/**
 * JSON with object keys sorted by UTF-16 code units at every level, no whitespace, and
 * undefined members dropped, as JSON.stringify drops them. For JSON data this is the RFC 8785
 * (JCS) serialization, since ECMAScript number and string output is what JCS prescribes.
 * Hand-written because it is a dozen lines and the only JCS packages add nothing beyond them.
 * Throws TypeError on values JSON cannot carry (bigint, non-finite numbers, functions, cycles):
 * callers hash data they decoded from JSON, so those are programmer errors.
 */
export function canonicalJson(value: unknown): string {
  return encode(value, new Set());
}

function encode(value: unknown, seen: Set<object>): string {
  if (value === null || typeof value === "boolean" || typeof value === "string") return JSON.stringify(value);
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new TypeError(`canonicalJson: non-finite number ${value}`);
    return JSON.stringify(value);
  }
  if (typeof value !== "object") throw new TypeError(`canonicalJson: cannot encode a ${typeof value}`);
  if (seen.has(value)) throw new TypeError("canonicalJson: cyclic value");
  seen.add(value);
  let out: string;
  if (Array.isArray(value)) {
    out = `[${value.map((item: unknown) => encode(item === undefined ? null : item, seen)).join(",")}]`;
  } else {
    const members = Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([k, v]) => `${JSON.stringify(k)}:${encode(v, seen)}`);
    out = `{${members.join(",")}}`;
  }
  seen.delete(value);
  return out;
}

export function sha256Hex(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

/** Hex SHA-256 of the canonical JSON of a booking.create input without its transient fields. */
export function bookingPayloadHash(input: BookingCreateInput): string {
  const { approval: _approval, verification_code: _code, ...payload } = input;
  return sha256Hex(canonicalJson(payload));
}
