/**
 * The two JWSs of an SD-JWT VC presentation (SchCP §3.4): the issuer-signed JWT and the
 * Key Binding JWT. Header and payload are parsed with the strict JSON parser (§3.1: a
 * duplicate member makes signed JSON invalid, so two parsers never read different claims).
 * Signatures are signature.ts's.
 */
import { decodeBase64Url } from "../../../json/base64.js";
import { parseStrictJson } from "../../../json/strict-json.js";
import { childPointer, err, fieldError, ok } from "../../../result.js";
import type { Result } from "../../../result.js";

export interface ProfileJws {
  readonly header: Record<string, unknown>;
  readonly payload: Record<string, unknown>;
  readonly compact: string;
}

/** Three base64url segments, a strict-JSON object header and payload, no crit. */
export function decodeProfileJws(compact: string, field: string): Result<ProfileJws> {
  const parts = compact.split(".");
  if (parts.length !== 3 || parts.some((p) => p === "")) {
    return err(fieldError("invalid_jws", field, "a compact JWS has exactly three non-empty segments"));
  }
  const [h, p, s] = parts as [string, string, string];
  const header = jsonObject(h, childPointer(field, "header"));
  if (!header.ok) return header;
  const payload = jsonObject(p, childPointer(field, "payload"));
  if (!payload.ok) return payload;
  const signature = decodeBase64Url(s, childPointer(field, "signature"));
  if (!signature.ok) return signature;
  if (Object.hasOwn(header.value, "crit")) {
    return err(
      fieldError(
        "unsupported_crit",
        childPointer(childPointer(field, "header"), "crit"),
        "no critical extension is supported",
      ),
    );
  }
  return ok({ header: header.value, payload: payload.value, compact });
}

function jsonObject(segment: string, field: string): Result<Record<string, unknown>> {
  const bytes = decodeBase64Url(segment, field);
  if (!bytes.ok) return bytes;
  const json = parseStrictJson(bytes.value, field);
  if (!json.ok) return json;
  const value = json.value;
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return err(fieldError("invalid_jws", field, "must be a JSON object"));
  }
  return ok(value as Record<string, unknown>);
}
