/**
 * Strict base64 / base64url and SHA-256 helpers.
 *
 * Node's Buffer decoder is lenient (it skips foreign characters, accepts missing or extra
 * padding and ignores non-zero trailing bits), so the same value could arrive in several
 * spellings. Signed protocol fields must have exactly one: each decoder checks the
 * alphabet, then decodes and re-encodes and refuses any input that is not the canonical
 * encoding of its own bytes (this catches non-canonical trailing bits and bad padding).
 */
import { createHash } from "node:crypto";
import { err, fieldError, ok } from "../result.js";
import type { Result } from "../result.js";

const BASE64URL = /^[A-Za-z0-9_-]*$/;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** base64url without padding (RFC 7515 §2, RFC 4648 §5). */
export function encodeBase64Url(bytes: Uint8Array): string {
  return toBuffer(bytes).toString("base64url");
}

/** Strict base64url: alphabet A-Z a-z 0-9 - _, no padding, no whitespace, canonical bits. */
export function decodeBase64Url(s: string, field: string): Result<Uint8Array> {
  if (!BASE64URL.test(s) || s.length % 4 === 1) {
    return err(fieldError("invalid_base64url", field, "not base64url without padding"));
  }
  const bytes = Buffer.from(s, "base64url");
  if (bytes.toString("base64url") !== s) {
    return err(fieldError("invalid_base64url", field, "base64url with non-canonical trailing bits"));
  }
  return ok(new Uint8Array(bytes));
}

/** Standard padded base64 (RFC 4648 §4), as RFC 8941 byte sequences are serialised. */
export function encodeBase64(bytes: Uint8Array): string {
  return toBuffer(bytes).toString("base64");
}

/**
 * Strict padded standard base64: length a multiple of 4, exactly the padding the length
 * needs, canonical trailing bits. (RFC 8941 §4.2.7 lets parsers accept missing padding;
 * this profile does not, so a value has one spelling. A 32-byte value with "==" is 45
 * characters and refused: the RFC 9530 Appendix B misprints.)
 */
export function decodeBase64Strict(s: string, field: string): Result<Uint8Array> {
  if (!BASE64.test(s) || s.length % 4 !== 0) {
    return err(fieldError("invalid_base64", field, "not padded standard base64"));
  }
  const bytes = Buffer.from(s, "base64");
  if (bytes.toString("base64") !== s) {
    return err(
      fieldError("invalid_base64", field, "base64 with wrong padding or non-canonical trailing bits"),
    );
  }
  return ok(new Uint8Array(bytes));
}

/** SHA-256 of bytes, or of a string's UTF-8 encoding. */
export function sha256(bytes: Uint8Array | string): Uint8Array {
  return new Uint8Array(createHash("sha256").update(bytes).digest());
}

export function sha256Base64Url(data: Uint8Array | string): string {
  return encodeBase64Url(sha256(data));
}

function toBuffer(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
