/**
 * Selective disclosure as RFC 9901 §7.1 (steps 3–5) and §7.3 process it, for SchCP §3.4:
 * recompute each disclosure's digest over its base64url form, replace the digests the payload
 * references, and reject repeated digests, disclosures in the wrong position (an array-element
 * disclosure under _sd, an object-property one in an array), duplicate claim names and
 * disclosures the payload does not reference; then remove _sd, _sd_alg and undisclosed array
 * elements.
 *
 * Why not @sd-jwt/core here: its decoder (decodeSdJwt, unpack) does none of those four checks.
 * A repeated or unreferenced disclosure is skipped, a disclosure in the wrong position is
 * skipped or used as if it were right, a disclosed name silently overwrites a plain claim,
 * and header, payload and disclosures are read with JSON.parse, which keeps the last of two
 * duplicate members where §3.1 requires refusing them. Its verify also checks a KB-JWT only
 * when told the nonce to expect (here the agent chooses it) and never its aud or iat. So this
 * module enforces every check itself, over the strict JSON parser, and @sd-jwt/core serves
 * only as the independent implementation the interop test checks this one against.
 *
 * §3.4 "Only allowlist entries are disclosable, never limits": the caller says where digests
 * may stand (`policy`); a digest anywhere else is refused even when nothing discloses it,
 * since hiding a limit (or the constraints object) would widen what the mandate allows.
 */
import { decodeBase64Url, sha256Base64Url } from "../../../json/base64.js";
import { parseStrictJson } from "../../../json/strict-json.js";
import { childPointer, err, fieldError, ok } from "../../../result.js";
import type { Result } from "../../../result.js";

/** RFC 9901 §4.2.1: the claim of an array-element digest. */
export const ARRAY_DIGEST_KEY = "...";
export const SD_KEY = "_sd";
export const SD_ALG_KEY = "_sd_alg";

export interface Disclosure {
  /** The base64url form, exactly as presented: what the digest is computed over (RFC 9901 §4.2.3). */
  readonly encoded: string;
  readonly digest: string;
  readonly salt: string;
  /** Present for an object-property disclosure, absent for an array element. */
  readonly name?: string;
  readonly value: unknown;
}

/** Where digests may stand: `path` names the containing object or array; "*" is any array index. */
export interface DisclosurePolicy {
  /** May this array hold {"...": digest} elements? */
  readonly elements: (path: readonly string[]) => boolean;
  /** May this object hold an _sd list? */
  readonly properties: (path: readonly string[]) => boolean;
}

export function parseDisclosure(encoded: string, field: string): Result<Disclosure> {
  if (encoded === "") return err(fieldError("invalid_disclosure", field, "a disclosure is never empty"));
  const bytes = decodeBase64Url(encoded, field);
  if (!bytes.ok) return bytes;
  const json = parseStrictJson(bytes.value, field);
  if (!json.ok) return json;
  const arr = json.value;
  if (!Array.isArray(arr) || (arr.length !== 2 && arr.length !== 3)) {
    return err(
      fieldError(
        "invalid_disclosure",
        field,
        "a disclosure is a JSON array of [salt, value] or [salt, name, value]",
      ),
    );
  }
  const [salt] = arr as unknown[];
  if (typeof salt !== "string")
    return err(fieldError("invalid_disclosure", field, "a disclosure's salt is a string"));
  const digest = sha256Base64Url(encoded);
  if (arr.length === 2) return ok({ encoded, digest, salt, value: arr[1] as unknown });
  const name = arr[1] as unknown;
  if (typeof name !== "string") {
    return err(fieldError("invalid_disclosure", field, "a disclosure's claim name is a string"));
  }
  // RFC 9901 §7.1 step 3.3.2.2: the claim names _sd and ... are never disclosed.
  if (name === SD_KEY || name === ARRAY_DIGEST_KEY || name === SD_ALG_KEY) {
    return err(
      fieldError("invalid_disclosure", field, `a disclosure may not carry the claim name "${name}"`),
    );
  }
  return ok({ encoded, digest, salt, name, value: arr[2] as unknown });
}

/**
 * The processed payload (RFC 9901 §7.1 steps 3–5). `fieldOf(i)` points at the i-th presented
 * disclosure; `payloadField` at the issuer JWT's payload.
 */
export function processDisclosures(
  payload: Record<string, unknown>,
  disclosures: readonly Disclosure[],
  policy: DisclosurePolicy,
  fields: { readonly payload: string; readonly disclosure: (i: number) => string },
): Result<Record<string, unknown>> {
  const byDigest = new Map<string, number>();
  for (const [i, d] of disclosures.entries()) {
    if (byDigest.has(d.digest)) {
      return err(
        fieldError(
          "repeated_digest",
          fields.disclosure(i),
          "the same disclosure is presented twice (RFC 9901 §7.1)",
        ),
      );
    }
    byDigest.set(d.digest, i);
  }
  const state: Walk = { policy, disclosures, byDigest, seen: new Set(), used: new Set(), fields };
  const top = walkObject(payload, [], fields.payload, state, true);
  if (!top.ok) return top;
  for (const [i, d] of disclosures.entries()) {
    if (!state.used.has(d.digest)) {
      return err(
        fieldError(
          "unreferenced_disclosure",
          fields.disclosure(i),
          "a disclosure the payload does not reference (RFC 9901 §7.1 step 4)",
        ),
      );
    }
  }
  return top;
}

interface Walk {
  readonly policy: DisclosurePolicy;
  readonly disclosures: readonly Disclosure[];
  readonly byDigest: ReadonlyMap<string, number>;
  /** Every digest met so far, disclosed or not: none may appear twice (RFC 9901 §7.1 step 3.5). */
  readonly seen: Set<string>;
  readonly used: Set<string>;
  readonly fields: { readonly payload: string; readonly disclosure: (i: number) => string };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Sets an own, enumerable member whatever its name ("__proto__" included). */
function put(obj: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
}

function walk(node: unknown, path: readonly string[], field: string, s: Walk): Result<unknown> {
  if (Array.isArray(node)) return walkArray(node, path, field, s);
  if (isObject(node)) return walkObject(node, path, field, s, false);
  return ok(node);
}

function claimDigest(digest: unknown, field: string, s: Walk): Result<Disclosure | undefined> {
  if (typeof digest !== "string") return err(fieldError("invalid_digest", field, "a digest is a string"));
  if (s.seen.has(digest)) {
    return err(
      fieldError("repeated_digest", field, "a digest appears more than once (RFC 9901 §7.1 step 3.5)"),
    );
  }
  s.seen.add(digest);
  const i = s.byDigest.get(digest);
  return ok(i === undefined ? undefined : s.disclosures[i]);
}

function walkObject(
  obj: Record<string, unknown>,
  path: readonly string[],
  field: string,
  s: Walk,
  top: boolean,
): Result<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(obj)) {
    if (key === SD_KEY) continue;
    if (key === SD_ALG_KEY) {
      // RFC 9901 §4.1.1: _sd_alg is a top-level claim only; removed after processing.
      if (top) continue;
      return err(
        fieldError("misplaced_sd_alg", childPointer(field, key), "_sd_alg belongs at the top level only"),
      );
    }
    if (key === ARRAY_DIGEST_KEY) {
      return err(
        fieldError(
          "misplaced_digest",
          childPointer(field, key),
          'a "..." digest stands only as an array element',
        ),
      );
    }
    const inner = walk(value, [...path, key], childPointer(field, key), s);
    if (!inner.ok) return inner;
    put(out, key, inner.value);
  }
  if (!Object.hasOwn(obj, SD_KEY)) return ok(out);
  const sdField = childPointer(field, SD_KEY);
  const list = obj[SD_KEY];
  if (!Array.isArray(list)) return err(fieldError("invalid_digest", sdField, "_sd is an array of digests"));
  if (!s.policy.properties(path)) {
    return err(
      fieldError(
        "not_disclosable",
        sdField,
        "only allowlist entries are disclosable, never limits (SchCP §3.4)",
      ),
    );
  }
  for (const [j, digest] of list.entries()) {
    const at = childPointer(sdField, j);
    const found = claimDigest(digest, at, s);
    if (!found.ok) return found;
    const d = found.value;
    if (d === undefined) continue; // undisclosed or a decoy
    const dField = s.fields.disclosure(s.byDigest.get(d.digest) ?? 0);
    if (d.name === undefined) {
      return err(
        fieldError(
          "wrong_position",
          dField,
          "an array-element disclosure is referenced as an object property (RFC 9901 §7.1 step 3.3.2)",
        ),
      );
    }
    if (Object.hasOwn(out, d.name)) {
      return err(
        fieldError(
          "duplicate_claim",
          dField,
          `claim "${d.name}" is disclosed where it already exists (RFC 9901 §7.1 step 3.3.2.3)`,
        ),
      );
    }
    s.used.add(d.digest);
    const inner = walk(d.value, [...path, d.name], dField, s);
    if (!inner.ok) return inner;
    put(out, d.name, inner.value);
  }
  return ok(out);
}

function walkArray(
  arr: readonly unknown[],
  path: readonly string[],
  field: string,
  s: Walk,
): Result<unknown[]> {
  const out: unknown[] = [];
  const elementPath = [...path, "*"];
  for (const [j, el] of arr.entries()) {
    const at = childPointer(field, j);
    if (isObject(el) && Object.hasOwn(el, ARRAY_DIGEST_KEY)) {
      if (Object.keys(el).length !== 1) {
        return err(fieldError("invalid_digest", at, 'an array-element digest is an object with "..." alone'));
      }
      if (!s.policy.elements(path)) {
        return err(
          fieldError(
            "not_disclosable",
            at,
            "only allowlist entries are disclosable, never limits (SchCP §3.4)",
          ),
        );
      }
      const found = claimDigest(el[ARRAY_DIGEST_KEY], childPointer(at, ARRAY_DIGEST_KEY), s);
      if (!found.ok) return found;
      const d = found.value;
      // RFC 9901 §7.1 step 3.4: an element no disclosure reveals (or a decoy) is removed.
      if (d === undefined) continue;
      const dField = s.fields.disclosure(s.byDigest.get(d.digest) ?? 0);
      if (d.name !== undefined) {
        return err(
          fieldError(
            "wrong_position",
            dField,
            "an object-property disclosure is referenced as an array element (RFC 9901 §7.1 step 3.4.2)",
          ),
        );
      }
      s.used.add(d.digest);
      const inner = walk(d.value, elementPath, dField, s);
      if (!inner.ok) return inner;
      out.push(inner.value);
      continue;
    }
    const inner = walk(el, elementPath, at, s);
    if (!inner.ok) return inner;
    out.push(inner.value);
  }
  return ok(out);
}
