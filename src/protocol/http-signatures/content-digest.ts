/**
 * Content-Digest (RFC 9530 §2): a Dictionary of algorithm -> byte sequence.
 *
 * SchCP §3.2 requires sha-256 over the body's exact bytes, recomputed by the host. Other
 * members (sha-512, ...) must still parse strictly but are not checked: RFC 9530 §3 lets a
 * recipient use the algorithms it chooses, and the whole header value is covered by the
 * request signature anyway. A header without sha-256 fails even if a sha-512 matches.
 */
import { timingSafeEqual } from "node:crypto";
import { encodeBase64, sha256 } from "../json/base64.js";
import { err, fieldError, ok } from "../result.js";
import type { Result } from "../result.js";
import { parseDictionary } from "./structured-fields.js";

/** "sha-256=:<base64>:" for these exact bytes. */
export function contentDigestSha256(body: Uint8Array): string {
  return `sha-256=:${encodeBase64(sha256(body))}:`;
}

/**
 * Parses a Content-Digest value. Every member must be a byte sequence in strict padded
 * base64 (so RFC 9530 Appendix B's 45-character "==" misprints are refused); a repeated
 * algorithm is refused instead of letting the last one win.
 */
export function parseContentDigest(value: string, field = "content-digest"): Result<Map<string, Uint8Array>> {
  const dict = parseDictionary(value, field);
  if (!dict.ok) return dict;
  const digests = new Map<string, Uint8Array>();
  for (const [alg, member] of dict.value) {
    if (member.kind !== "item" || member.value.type !== "bytes") {
      return err(fieldError("invalid_content_digest", field, `member ${alg} is not a byte sequence`));
    }
    if (digests.has(alg))
      return err(fieldError("invalid_content_digest", field, `algorithm ${alg} appears twice`));
    digests.set(alg, member.value.value);
  }
  if (digests.size === 0) return err(fieldError("invalid_content_digest", field, "no digest"));
  return ok(digests);
}

/** SchCP §3.2: the sha-256 member must be present and equal sha-256(body). */
export function verifyContentDigest(value: string, body: Uint8Array, field = "content-digest"): Result<void> {
  const parsed = parseContentDigest(value, field);
  if (!parsed.ok) return parsed;
  const claimed = parsed.value.get("sha-256");
  if (claimed === undefined)
    return err(fieldError("missing_sha256", field, "Content-Digest has no sha-256 member"));
  const actual = sha256(body);
  if (claimed.length !== actual.length || !timingSafeEqual(claimed, actual)) {
    return err(fieldError("digest_mismatch", field, "Content-Digest sha-256 does not match the body"));
  }
  return ok(undefined);
}
