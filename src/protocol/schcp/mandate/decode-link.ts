/**
 * Decoding one compact mandate before anything trusts it: the JWS envelope, its
 * header, and the claims against the closed MandateClaims schema plus the semantic
 * reading of the constraints (§3.1 "Parsing signed JSON", §3.3 "Claims are validated").
 * The signature is checked later, by the chain rules, with the key they pick.
 */
import { decodeCompactJws } from "../../jose/jws.js";
import type { DecodedJws } from "../../jose/jws.js";
import { childPointer, err, ok } from "../../result.js";
import type { Result } from "../../result.js";
import type { MandateClaims } from "../types.js";
import { validateSchcp } from "../validate.js";
import { parseLinkConstraints } from "./constraints.js";
import type { LinkConstraints } from "./constraints.js";
import { BoundedMemo } from "../../bounded-memo.js";
import { mandateInvalid } from "./refusal.js";
import type { MandateRefusal } from "./types.js";

export const MANDATE_TYP = "schcp-mandate+jwt";

/**
 * Header members a mandate may carry. kid is a harmless hint. Everything else is
 * refused: crit because we implement no extension (RFC 7515 §4.1.11), and jwk, jku,
 * x5c and friends because the signing key comes from the claims (principal_jwk or
 * issuer_jwk), and a second key in the header is one another verifier might use.
 */
const ALLOWED_HEADER = new Set(["alg", "typ", "kid"]);

export interface DecodedLink {
  readonly jws: DecodedJws;
  readonly claims: MandateClaims;
  readonly constraints: LinkConstraints;
  /** The pointer of this JWS in refusals: "SchCP-Mandate" or "SchCP-Mandate/payload/parent". */
  readonly field: string;
}

/** Decoding is a pure function of (compact, field); an agent presents one mandate many times. */
const decoded = new BoundedMemo<Result<DecodedLink, MandateRefusal>>(4_096);

export function decodeMandateLink(compact: string, field: string): Result<DecodedLink, MandateRefusal> {
  if (typeof compact !== "string") return decodeLink(compact, field);
  const key = `${field}\n${compact}`;
  return decoded.get(key) ?? decoded.set(key, decodeLink(compact, field));
}

function decodeLink(compact: string, field: string): Result<DecodedLink, MandateRefusal> {
  // §3.4: an SD-JWT VC presentation is told apart by "~", which a compact JWS never contains.
  // verifyMandate takes presentations before they get here; what arrives is a chain's parent,
  // and an SD-JWT VC mandate is never one (§3.4 "Not in this profile": no delegate chain).
  if (compact.includes("~")) {
    return err(
      mandateInvalid(
        "a compact mandate never contains ~; an SD-JWT VC mandate (§3.4) cannot be a chain's parent",
        field,
      ),
    );
  }
  const jws = decodeCompactJws(compact, field);
  if (!jws.ok)
    return err(mandateInvalid(`mandate is not a valid JWS: ${jws.error.message}`, jws.error.field));

  const header = jws.value.header;
  const headerField = childPointer(field, "header");
  for (const name of Object.keys(header)) {
    if (!ALLOWED_HEADER.has(name)) {
      return err(
        mandateInvalid(`mandate JWS header member "${name}" is not allowed`, childPointer(headerField, name)),
      );
    }
  }
  if (header.alg !== "EdDSA") {
    return err(mandateInvalid("mandate alg must be EdDSA", childPointer(headerField, "alg")));
  }
  if (header.typ !== MANDATE_TYP) {
    return err(mandateInvalid(`mandate typ must be "${MANDATE_TYP}"`, childPointer(headerField, "typ")));
  }
  if (header.kid !== undefined && typeof header.kid !== "string") {
    return err(mandateInvalid("mandate kid must be a string", childPointer(headerField, "kid")));
  }

  const claims = validateSchcp("MandateClaims", jws.value.payload);
  if (!claims.ok) {
    const at = `${childPointer(field, "payload")}${claims.error.field}`;
    return err(mandateInvalid(`invalid mandate: ${claims.error.message}`, at));
  }
  const constraints = parseLinkConstraints(claims.value, field);
  if (!constraints.ok) return constraints;
  return ok({ jws: jws.value, claims: claims.value, constraints: constraints.value, field });
}
