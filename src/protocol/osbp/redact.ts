/**
 * Audit redaction (OSBP "Audit", "Security and Privacy Considerations"): structured contact
 * and name fields, provider image URLs, verification codes and approval tokens are replaced
 * by a marker; free text loses contact-shaped strings and every value that was redacted from a
 * structured field anywhere in the input or result (a customer's name inside a receipt text).
 *
 * Hand-written because redaction is defined by OSBP's own field names. The phone shapes are
 * E.164 (the spec's customer format) and common formatted NANP and "+CC …" numbers; arbitrary
 * national formats without a "+" are not recognisable without a phone-number library.
 * Correlation ids (id, *_id, *_ids, idempotency_key) are kept: they are not secrets (OSBP
 * "Correlation identifiers"), so only contact shapes are scrubbed from them.
 */
import { canonicalJson, sha256Hex } from "./payload-hash.js";

export type RedactionKind = "phone" | "email" | "name" | "code" | "token" | "image_url";

export const redactionMarker = (kind: RedactionKind): string => `[redacted:${kind}]`;

export interface AuditSnapshots {
  input: unknown;
  result: unknown;
  /** Hex SHA-256 of the canonical JSON of the redacted snapshots. */
  input_hash: string;
  result_hash: string;
}

type Side = "input" | "result";

interface Place {
  readonly side: Side;
  readonly key: string | undefined;
  readonly parentKey: string | undefined;
  /** Direct members of a customer object (or of an element of a customers array). */
  readonly inCustomer: boolean;
  readonly idLike: boolean;
}

const CONTACT_KEYS: ReadonlyMap<string, RedactionKind> = new Map([
  ["phone", "phone"],
  ["phone_number", "phone"],
  ["email", "email"],
  ["email_address", "email"],
  ["display_name", "name"],
  ["given_name", "name"],
  ["family_name", "name"],
  ["provider_image_url", "image_url"],
  ["verification_code", "code"],
  ["approval_token", "token"],
]);

/** The kind of a structured field, or undefined when its value is ordinary data. */
function structuredKind(place: Place): RedactionKind | undefined {
  const { key, parentKey, inCustomer, side } = place;
  if (key === undefined) return undefined;
  const known = CONTACT_KEYS.get(key);
  if (known !== undefined) return known;
  if (inCustomer && (key === "name" || key.endsWith("_name"))) return "name";
  if (key === "token" && parentKey === "approval") return "token";
  // verification.verify's `code` is a secret; in a result `code` is the Problem code.
  if (key === "code" && side === "input") return "code";
  return undefined;
}

const isIdKey = (key: string | undefined): boolean =>
  key !== undefined && (key === "id" || key.endsWith("_id") || key === "idempotency_key");

/** approval.token="…" as the approval gate's retry instruction writes it (OSBP "booking.create"). */
const APPROVAL_INSTRUCTION = /approval\.token\s*=\s*"[^"]*"/g;
const EMAIL =
  /[\p{L}\p{N}.!#$%&'*+/=?^_`{|}~-]+@[\p{L}\p{N}](?:[\p{L}\p{N}-]*[\p{L}\p{N}])?(?:\.[\p{L}\p{N}](?:[\p{L}\p{N}-]*[\p{L}\p{N}])?)+/gu;
/** "+15555550100", "+1 (555) 555-0100", "+44 20 7946 0958"; at least 7 digits (checked below). */
const INTL_PHONE = /(?<![\p{L}\p{N}_+])\+\d{1,3}(?:[ .-]?\(?\d{1,4}\)?){1,5}(?!\p{N})/gu;
/** "(555) 555-0100", "555-555-0100", "555.555.0100", "1-555-555-0100"; separators required. */
const NANP_PHONE = /(?<![\p{L}\p{N}_])(?:1[ .-]?)?(?:\(\d{3}\)[ .-]?|\d{3}[ .-])\d{3}[ .-]\d{4}(?!\p{N})/gu;

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

function scrubShapes(text: string): string {
  return text
    .replace(APPROVAL_INSTRUCTION, `approval.token="${redactionMarker("token")}"`)
    .replace(EMAIL, redactionMarker("email"))
    .replace(INTL_PHONE, (m) => ((m.match(/\d/g)?.length ?? 0) >= 7 ? redactionMarker("phone") : m))
    .replace(NANP_PHONE, redactionMarker("phone"));
}

/** Known sensitive strings, longest first so "Jane Customer" wins over "Jane". */
class Discovered {
  private readonly kinds = new Map<string, RedactionKind>();
  private pattern: RegExp | undefined;

  add(value: string, kind: RedactionKind): void {
    const parts = kind === "name" ? [value, ...value.split(/\s+/).filter((w) => w.length >= 3)] : [value];
    for (const part of parts) {
      const v = part.trim();
      if (v.length >= 2 && !this.kinds.has(v.toLowerCase())) this.kinds.set(v.toLowerCase(), kind);
    }
    this.pattern = undefined;
  }

  replaceIn(text: string): string {
    if (this.kinds.size === 0) return text;
    this.pattern ??= new RegExp(
      `(?<![\\p{L}\\p{N}_])(?:${[...this.kinds.keys()]
        .sort((a, b) => b.length - a.length)
        .map(escapeRegExp)
        .join("|")})(?![\\p{L}\\p{N}_])`,
      "giu",
    );
    return text.replace(this.pattern, (m) => redactionMarker(this.kinds.get(m.toLowerCase()) ?? "name"));
  }
}

type StringHandler = (text: string, place: Place) => string;
type StructuredHandler = (value: unknown, kind: RedactionKind) => void;

/**
 * Rebuilds a JSON-safe copy of `value` (never mutating it): structured fields become markers,
 * other strings go through `onString`. JSON.stringify's rules apply to what JSON cannot carry.
 */
function rebuild(
  value: unknown,
  place: Place,
  onStructured: StructuredHandler,
  onString: StringHandler,
  seen: Set<object>,
): unknown {
  const kind = structuredKind(place);
  if (kind !== undefined && value !== null && value !== undefined) {
    onStructured(value, kind);
    return redactionMarker(kind);
  }
  if (typeof value === "string") return onString(value, place);
  if (typeof value === "bigint") return onString(value.toString(), place);
  if (typeof value === "number") return Number.isFinite(value) ? value : null;
  if (value === null || typeof value === "boolean") return value;
  if (typeof value !== "object") return undefined;
  if (seen.has(value)) return "[redacted:cycle]";
  const json: unknown = (value as { toJSON?: unknown }).toJSON;
  if (typeof json === "function") {
    return rebuild((json as () => unknown).call(value), place, onStructured, onString, seen);
  }
  seen.add(value);
  let out: unknown;
  if (Array.isArray(value)) {
    // Elements inherit the array's key: the ids in *_ids, the customers in customers.
    out = value.map((item: unknown) => {
      const r = rebuild(
        item,
        { ...place, idLike: place.idLike || !!place.key?.endsWith("_ids") },
        onStructured,
        onString,
        seen,
      );
      return r === undefined ? null : r;
    });
  } else {
    const obj: Record<string, unknown> = {};
    const customer = place.key === "customer" || place.key === "customers";
    for (const [key, member] of Object.entries(value)) {
      const r = rebuild(
        member,
        { side: place.side, key, parentKey: place.key, inCustomer: customer, idLike: isIdKey(key) },
        onStructured,
        onString,
        seen,
      );
      if (r !== undefined) obj[key] = r;
    }
    out = obj;
  }
  seen.delete(value);
  return out;
}

const root = (side: Side): Place => ({
  side,
  key: undefined,
  parentKey: undefined,
  inCustomer: false,
  idLike: false,
});

/**
 * Redacted audit snapshots of one tool call and the hashes of those snapshots. Values
 * redacted from structured fields of either side are also scrubbed from the free text of both.
 */
export function redactForAudit(input: unknown, result: unknown): AuditSnapshots {
  const discovered = new Discovered();
  const collect: StructuredHandler = (value, kind) => {
    if (typeof value === "string" || typeof value === "number" || typeof value === "bigint") {
      discovered.add(String(value), kind);
    }
  };
  const ignore: StringHandler = (text) => text;
  rebuild(input, root("input"), collect, ignore, new Set());
  rebuild(result, root("result"), collect, ignore, new Set());

  // Shapes first, so a discovered name cannot break an email apart before it is recognised.
  const scrub: StringHandler = (text, place) => {
    const shaped = scrubShapes(text);
    return place.idLike ? shaped : discovered.replaceIn(shaped);
  };
  const noop: StructuredHandler = () => undefined;
  const redactedInput = rebuild(input, root("input"), noop, scrub, new Set());
  const redactedResult = rebuild(result, root("result"), noop, scrub, new Set());
  return {
    input: redactedInput,
    result: redactedResult,
    input_hash: sha256Hex(canonicalJson(redactedInput ?? null)),
    result_hash: sha256Hex(canonicalJson(redactedResult ?? null)),
  };
}
