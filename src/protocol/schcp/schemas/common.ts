/**
 * Building blocks of the SchCP 0.4 JSON Schema (2020-12): small helpers and the primitive
 * definitions every other schema refers to by "#/$defs/<Name>".
 *
 * Patterns are ECMA-262 and compiled with the "u" flag, so "$" matches only at the very end
 * ("PT1H\n" is not a Duration, §2.1). [0-9] is written instead of \d on purpose.
 */

/** A JSON Schema object. Kept loose: these are plain JSON documents, published as they are. */
export type Schema = { [keyword: string]: unknown };

export const ref = (name: string): Schema => ({ $ref: `#/$defs/${name}` });

/** A closed object: members it does not define are invalid (§5.2, §8). */
export function closed(properties: Record<string, Schema>, required: readonly string[] = []): Schema {
  return { type: "object", properties, required: [...required], additionalProperties: false };
}

/** An open object (discovery and operator documents, §2.1): known members typed, others ignored. */
export function open(properties: Record<string, Schema>, required: readonly string[] = []): Schema {
  return { type: "object", properties, required: [...required] };
}

export const str: Schema = { type: "string", minLength: 1 };
export const text: Schema = { type: "string" };
export const positiveInt: Schema = { type: "integer", minimum: 1 };
export const nonNegativeInt: Schema = { type: "integer", minimum: 0 };
/** JWT NumericDate claims (iat, exp): whole seconds. 1792000000.0 is an integer (§2.1). */
export const numericDate: Schema = { type: "integer", minimum: 0 };
export const trueOnly: Schema = { const: true };
export const enumOf = (...values: string[]): Schema => ({ type: "string", enum: values });

/** "end is absent iff open_end is true" (§4.2), for objects whose own members carry both. */
export const endIffNotOpen: Schema = {
  if: { required: ["open_end"] },
  then: { properties: { end: false } },
  else: { required: ["end"] },
};

/** §2.1: P[nW][nD][T[nH][nM][n[.n]S]], at least one part, T only before a time part. */
const DURATION_PATTERN =
  "^P(?!$)(?:[0-9]+W)?(?:[0-9]+D)?(?:T(?=[0-9])(?:[0-9]+H)?(?:[0-9]+M)?(?:[0-9]+(?:\\.[0-9]+)?S)?)?$";
/** §2.1: a retention is in weeks or days only. */
const RETENTION_PATTERN = "^P(?=[0-9])(?:[0-9]+W)?(?:[0-9]+D)?$";
/** Base64url SHA-256 (32 bytes = 43 characters; the last one carries 2 zero bits). */
const SHA256_B64U_PATTERN = "^[A-Za-z0-9_-]{42}[AEIMQUYcgkosw048]$";
/** Compact JWS: three base64url segments (§3.3, §5.2). */
const COMPACT_JWS_PATTERN = "^[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+$";
export const PRINCIPAL_PATTERN = "^urn:schcp:principal:jwk-thumbprint:[A-Za-z0-9_-]{42}[AEIMQUYcgkosw048]$";
export const HOST_PRINCIPAL_PATTERN = "^urn:schcp:host:[^\\s]+$";

export const commonDefs: Record<string, Schema> = {
  Duration: { type: "string", pattern: DURATION_PATTERN },
  Retention: { type: "string", pattern: RETENTION_PATTERN },
  DateTime: { type: "string", format: "date-time" },
  /** An IANA time zone that exists in this runtime's tz database. */
  TimeZone: { type: "string", format: "iana-time-zone" },
  Uri: { type: "string", format: "uri" },
  /** Callback, status and endpoint URLs: https only (§5.8); the connect-time check is elsewhere. */
  HttpsUri: { type: "string", format: "uri", pattern: "^https://" },
  /**
   * Where discovery documents and endpoints live: https (§3.1), or plain http on a loopback
   * host, so a gateway run on a developer's machine (http://127.0.0.1:8787) publishes valid
   * documents. Nothing but the same machine can reach a loopback address, so this admits no
   * remote plain-text endpoint.
   */
  EndpointUri: {
    type: "string",
    format: "uri",
    pattern:
      "^(https://|http://(127\\.[0-9]{1,3}\\.[0-9]{1,3}\\.[0-9]{1,3}|localhost|\\[::1\\])(:[0-9]{1,5})?(/|$))",
  },
  Sha256: { type: "string", pattern: SHA256_B64U_PATTERN },
  CompactJws: { type: "string", pattern: COMPACT_JWS_PATTERN },
  PrincipalId: { type: "string", pattern: PRINCIPAL_PATTERN },
  Id: { type: "string", minLength: 1, maxLength: 256 },
  /**
   * §2.1 Money: a decimal string and an ISO 4217 code. Whether the amount has no more decimals
   * than the currency's minor unit (79.001 CAD is invalid) is checked in code by the money
   * module, since a schema would need one branch per currency.
   */
  Money: closed(
    {
      amount: { type: "string", pattern: "^(?:0|[1-9][0-9]*)(?:\\.[0-9]+)?$" },
      currency: { type: "string", pattern: "^[A-Z]{3}$" },
    },
    ["amount", "currency"],
  ),
  /** An Ed25519 public JWK (§3.4: host, agent and compact-mandate keys are OKP/Ed25519). */
  Jwk: closed(
    {
      kty: { const: "OKP" },
      crv: { const: "Ed25519" },
      // 32 bytes base64url: 43 characters, the last carrying 2 zero bits.
      x: { type: "string", pattern: SHA256_B64U_PATTERN },
      kid: str,
      use: { const: "sig" },
    },
    ["kty", "crv", "x"],
  ),
  Place: {
    ...closed({
      name: str,
      street: str,
      locality: str,
      region: str,
      postal_code: str,
      // ISO 3166-1 alpha-2, as in the discovery example's address ("CA"); strict reading.
      country: { type: "string", pattern: "^[A-Z]{2}$" },
    }),
    minProperties: 1,
  },
  Contact: {
    ...closed({ name: str, phone: str, email: { type: "string", format: "email" } }),
    minProperties: 1,
  },
  TimeWindow: closed({ start: ref("DateTime"), end: ref("DateTime") }, ["start", "end"]),
};
