/**
 * MandateClaims (SchCP §3.3) and AttestationClaims (§7.5).
 *
 * Mandates are closed at every depth: "Unknown claims and constraint names, at any depth,
 * unparseable dates and wrongly typed limits make the mandate invalid" (§3.3). A root carries
 * principal_jwk; a delegated child carries issuer_jwk and parent instead (§3.3 Attenuation).
 */
import { closed, enumOf, numericDate, positiveInt, ref, str } from "./common.js";
import type { Schema } from "./common.js";

const ids: Schema = { type: "array", items: ref("Id"), minItems: 1, uniqueItems: true };

export const mandateDefs: Record<string, Schema> = {
  MandateScope: enumOf("hold", "book", "cancel", "reschedule", "delegate"),
  MandateConstraints: closed({
    services: ids,
    window: closed({ not_before: ref("DateTime"), not_after: ref("DateTime") }),
    max_price: ref("Money"),
    max_bookings: positiveInt,
    bookings: ids,
    offer_sha256: ref("Sha256"),
    shared_limit: { type: "boolean" },
  }),
  MandateClaims: {
    ...closed(
      {
        iss: ref("PrincipalId"),
        sub: str,
        // A host id, or a list of them (§3.3 "One consent, several hosts").
        aud: { anyOf: [ref("Id"), ids] },
        iat: numericDate,
        exp: numericDate,
        jti: ref("Id"),
        cnf: closed({ jkt: ref("Sha256") }, ["jkt"]),
        principal_jwk: ref("Jwk"),
        issuer_jwk: ref("Jwk"),
        parent: ref("CompactJws"),
        // respond and commit need no scope of their own (§5.10 "any scope", §5.12 "scope book").
        scope: { type: "array", items: ref("MandateScope"), minItems: 1, uniqueItems: true },
        constraints: ref("MandateConstraints"),
        // Strict reading: a consent member states its mode.
        consent: closed({ mode: enumOf("human_present", "human_not_present"), statement: str }, ["mode"]),
        contact: ref("Contact"),
        status: ref("HttpsUri"),
        // "attestations (root mandates only, at most four)"; a child need not carry any.
        attestations: { type: "array", items: ref("CompactJws"), maxItems: 4 },
      },
      ["iss", "sub", "aud", "iat", "exp", "jti", "cnf", "scope"],
    ),
    if: { required: ["principal_jwk"] },
    then: { properties: { issuer_jwk: false, parent: false } },
    else: { required: ["issuer_jwk", "parent"] },
  },
  /** §7.5. Closed (strict reading): a failing attestation is ignored, never rejected. */
  AttestationClaims: closed(
    { iss: ref("Id"), sub: ref("PrincipalId"), iat: numericDate, exp: numericDate, assurance: str },
    ["iss", "sub", "iat", "exp", "assurance"],
  ),
};
