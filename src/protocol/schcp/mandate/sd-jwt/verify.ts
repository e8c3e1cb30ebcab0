/**
 * SchCP §3.4 "AP2 profile: SD-JWT VC mandates": an SD-JWT VC presentation with Key Binding
 * to the mandate this host evaluates. The result is an ordinary MandateClaims (aud = this
 * host's id, constraints = the shared constraints plus this host's own host_constraints
 * member, cnf.jkt = the thumbprint of cnf.jwk, status = schcp_status), so every check of §3.3
 * steps 2–7 and everything after it applies unchanged (mandate/verify.ts does those).
 */
import { jwkThumbprint, parseEd25519PublicJwk, principalUrn } from "../../../jose/jwk.js";
import type { Ed25519PublicJwk } from "../../../jose/jwk.js";
import { childPointer, err, ok } from "../../../result.js";
import type { Result } from "../../../result.js";
import type { MandateClaims, MandateConstraints } from "../../types.js";
import { validateSdJwtMandateClaims } from "../../validate.js";
import { claimField, MANDATE_HEADER } from "../fields.js";
import { mandateInvalid } from "../refusal.js";
import type { MandateRefusal } from "../types.js";
import { parseDisclosure, processDisclosures, SD_ALG_KEY } from "./disclosures.js";
import type { Disclosure, DisclosurePolicy } from "./disclosures.js";
import { decodeProfileJws } from "./jws.js";
import { verifyProfileSignature } from "./signature.js";
import { algOf, parsePrincipalJwk } from "./keys.js";
import { KB_JWT_TYP, KB_MAX_AGE_SEC, KB_MAX_FUTURE_SEC, SD_ALG, SD_JWT_TYP, sdHash } from "./profile.js";
import type { PrincipalPublicJwk } from "./keys.js";

/** Where each part is reported: the header, then its issuer JWT, disclosures and KB-JWT. */
export const SD_JWT_ISSUER_FIELD = childPointer(MANDATE_HEADER, "issuer_jwt");
const ISSUER_FIELD = SD_JWT_ISSUER_FIELD;
const KB_FIELD = childPointer(MANDATE_HEADER, "kb_jwt");
const disclosureField = (i: number): string => childPointer(childPointer(MANDATE_HEADER, "disclosures"), i);

/** Issuer JWT header members: alg, typ, jwk (the principal key), and kid, a harmless hint. */
const ISSUER_HEADER = new Set(["alg", "typ", "jwk", "kid"]);
const KB_HEADER = new Set(["alg", "typ"]);
const KB_CLAIMS = new Set(["aud", "nonce", "iat", "sd_hash"]);
/** The issuer-only claims that never reach the evaluated mandate. */
const ENVELOPE_CLAIMS = new Set(["aud", "cnf", "host_constraints", "schcp_status", "vct"]);

/**
 * §3.4 "Only allowlist entries are disclosable, never limits": aud elements, host_constraints
 * members, and the entries of allowlists (scope, services, bookings), whose hiding can only
 * narrow what the mandate allows. Nowhere else: a hidden window or max_price would widen it.
 */
const ALLOWLISTS = new Set(["aud", "scope", "constraints/services", "constraints/bookings"]);
const MANDATE_DISCLOSURE_POLICY: DisclosurePolicy = {
  elements: (path) => {
    if (path.length === 3 && path[0] === "host_constraints")
      return ["services", "bookings"].includes(path[2]!);
    return ALLOWLISTS.has(path.join("/"));
  },
  properties: (path) => path.length === 1 && path[0] === "host_constraints",
};

export interface SdJwtMandateContext {
  readonly hostId: string;
  readonly nowSec: number;
}

export interface VerifiedSdJwtMandate {
  /** The mandate this host evaluates (§3.4), valid against MandateClaims. */
  readonly claims: MandateClaims;
  readonly principalJwk: PrincipalPublicJwk;
  readonly cnfJwk: Ed25519PublicJwk;
}

const invalid = (message: string, field: string) => err(mandateInvalid(message, field));

/**
 * Everything §3.4 adds to §3.3 check 1: the envelope, the disclosures, the Key Binding JWT and
 * the evaluated mandate's schema. Time (check 3, with mandate_expired), cnf.jkt against the
 * request key (check 4) and status (check 7) are the caller's, as for any mandate.
 */
export async function verifySdJwtPresentation(
  value: string,
  ctx: SdJwtMandateContext,
): Promise<Result<VerifiedSdJwtMandate, MandateRefusal>> {
  const parts = value.split("~");
  if (parts.length < 2) return invalid("an SD-JWT VC presentation has ~ separators", MANDATE_HEADER);
  const issuerCompact = parts[0]!;
  const kbCompact = parts[parts.length - 1]!;
  const encodedDisclosures = parts.slice(1, -1);
  // §3.4 "Every presentation MUST end in a KB-JWT".
  if (kbCompact === "") {
    return invalid("an SD-JWT VC mandate presentation must end in a Key Binding JWT (§3.4)", KB_FIELD);
  }

  // The issuer-signed JWT (RFC 9901 §7.1 step 2): header, key, signature.
  const issuer = decodeProfileJws(issuerCompact, ISSUER_FIELD);
  if (!issuer.ok) return invalid(`issuer JWT: ${issuer.error.message}`, issuer.error.field);
  const header = issuer.value.header;
  const headerField = childPointer(ISSUER_FIELD, "header");
  for (const name of Object.keys(header)) {
    if (!ISSUER_HEADER.has(name)) {
      return invalid(`issuer JWT header member "${name}" is not allowed`, childPointer(headerField, name));
    }
  }
  if (header.typ !== SD_JWT_TYP) {
    return invalid(`issuer JWT typ must be "${SD_JWT_TYP}" (§3.4)`, childPointer(headerField, "typ"));
  }
  const jwk = parsePrincipalJwk(header.jwk, childPointer(headerField, "jwk"));
  if (!jwk.ok) return invalid(`issuer JWT jwk: ${jwk.error.message}`, jwk.error.field);
  if (header.alg !== algOf(jwk.value)) {
    return invalid(
      `issuer JWT alg must be ${algOf(jwk.value)}, the alg of its key (§3.4)`,
      childPointer(headerField, "alg"),
    );
  }
  if (!(await verifyProfileSignature(issuer.value, jwk.value))) {
    return invalid("issuer JWT signature does not verify against its jwk header", ISSUER_FIELD);
  }
  const payload = issuer.value.payload;
  const payloadField = childPointer(ISSUER_FIELD, "payload");
  const issUrn = principalUrn(jwkThumbprint(jwk.value));
  if (payload.iss !== issUrn) {
    return invalid("iss is not the thumbprint of the jwk header (§3.4)", childPointer(payloadField, "iss"));
  }
  if (Object.hasOwn(payload, SD_ALG_KEY) && payload[SD_ALG_KEY] !== SD_ALG) {
    return invalid(`_sd_alg must be "${SD_ALG}"`, childPointer(payloadField, SD_ALG_KEY));
  }

  // Disclosures (RFC 9901 §7.1 steps 3–5, §7.3).
  const disclosures: Disclosure[] = [];
  for (const [i, encoded] of encodedDisclosures.entries()) {
    const d = parseDisclosure(encoded, disclosureField(i));
    if (!d.ok) return invalid(`disclosure: ${d.error.message}`, d.error.field);
    disclosures.push(d.value);
  }
  const processed = processDisclosures(payload, disclosures, MANDATE_DISCLOSURE_POLICY, {
    payload: payloadField,
    disclosure: disclosureField,
  });
  if (!processed.ok) return invalid(processed.error.message, processed.error.field);

  const evaluated = evaluate(processed.value, payload, ctx.hostId, payloadField);
  if (!evaluated.ok) return evaluated;
  const { claims: unchecked, cnfJwk } = evaluated.value;
  const claims = validateSdJwtMandateClaims(unchecked);
  if (!claims.ok) {
    return invalid(`invalid mandate: ${claims.error.message}`, `${payloadField}${claims.error.field}`);
  }

  const kb = await verifyKeyBinding(kbCompact, issuerCompact, encodedDisclosures, cnfJwk, ctx);
  if (!kb.ok) return kb;
  return ok({ claims: claims.value, principalJwk: jwk.value, cnfJwk });
}

/** The mandate the verifier evaluates (§3.4 "Selective disclosure"), before its schema check. */
function evaluate(
  c: Record<string, unknown>,
  signed: Record<string, unknown>,
  hostId: string,
  field: string,
): Result<{ claims: Record<string, unknown>; cnfJwk: Ed25519PublicJwk }, MandateRefusal> {
  const at = (...path: string[]) => claimField(ISSUER_FIELD, ...path);
  // §3.4 "Not in this profile": a Token Status List claim is refused, not accepted unchecked.
  if (Object.hasOwn(c, "status")) {
    return invalid(
      "status (Token Status List) is not in this profile; revocation uses schcp_status (§3.4)",
      at("status"),
    );
  }
  for (const name of ["principal_jwk", "issuer_jwk", "parent"]) {
    if (Object.hasOwn(c, name)) {
      return invalid(
        `${name} is not a claim of an SD-JWT VC mandate: the key is the jwk header, and there are no chains (§3.4)`,
        at(name),
      );
    }
  }
  if (Object.hasOwn(c, "vct") && typeof c.vct !== "string") return invalid("vct must be a string", at("vct"));

  // cnf.jwk: the agent's Ed25519 key, since request signing stays Ed25519-only (§3.4 "Keys").
  const cnf = c.cnf;
  if (typeof cnf !== "object" || cnf === null || Array.isArray(cnf) || Object.keys(cnf).join() !== "jwk") {
    return invalid("cnf must be { jwk } with the agent's Ed25519 key (§3.4)", at("cnf"));
  }
  const cnfJwk = parseEd25519PublicJwk((cnf as { jwk: unknown }).jwk, at("cnf", "jwk"), { allowKid: true });
  if (!cnfJwk.ok) return invalid(`cnf.jwk: ${cnfJwk.error.message}`, cnfJwk.error.field);

  // aud: this host among the disclosed elements, and no wildcard at all (§3.4 "aud holds no wildcard").
  const aud = typeof c.aud === "string" ? [c.aud] : c.aud;
  if (!Array.isArray(aud) || aud.some((a) => typeof a !== "string")) {
    return invalid("aud must be a host id or a list of them", at("aud"));
  }
  if (aud.includes("*"))
    return invalid('an SD-JWT VC mandate\'s aud holds no wildcard "*" (§3.4)', at("aud"));
  if (!aud.includes(hostId)) {
    return invalid(`mandate audience does not include this host (${hostId})`, at("aud"));
  }

  // host_constraints: this host's member must be disclosed, so withholding it fails closed.
  const hc = c.host_constraints;
  if (typeof hc !== "object" || hc === null || Array.isArray(hc)) {
    return invalid(
      "host_constraints must be an object with a member for every audience (§3.4)",
      at("host_constraints"),
    );
  }
  const members = hc as Record<string, unknown>;
  if (!Object.hasOwn(members, hostId)) {
    return invalid(
      `the presentation does not disclose this host's host_constraints member (${hostId}); withholding it fails closed (§3.4)`,
      at("host_constraints", hostId),
    );
  }
  const own = members[hostId];
  if (typeof own !== "object" || own === null || Array.isArray(own)) {
    return invalid("a host_constraints member is a constraints object", at("host_constraints", hostId));
  }
  const shared = c.constraints;
  if (shared !== undefined && (typeof shared !== "object" || shared === null || Array.isArray(shared))) {
    return invalid("constraints must be an object", at("constraints"));
  }
  const sharedC = (shared ?? {}) as Record<string, unknown>;
  // §3.4 "MUST NOT set a constraint in both places": checked for every member disclosed.
  for (const [member, value] of Object.entries(members)) {
    if (typeof value !== "object" || value === null) continue;
    const both = Object.keys(value).filter((k) => Object.hasOwn(sharedC, k));
    if (both.length > 0) {
      return invalid(
        `constraint ${both.join(", ")} is set both in constraints and in host_constraints (§3.4)`,
        at("host_constraints", member, both[0]!),
      );
    }
  }
  const constraints = { ...sharedC, ...(own as Record<string, unknown>) } as MandateConstraints;

  // §3.4 "A closed mandate names exactly one host": one aud entry as signed, decoys included.
  if (constraints.offer_sha256 !== undefined) {
    const signedAud = signed.aud;
    if (Array.isArray(signedAud) ? signedAud.length !== 1 : typeof signedAud !== "string") {
      return invalid("a closed mandate names exactly one host (§3.4)", childPointer(field, "aud"));
    }
  }

  const rest: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(c)) {
    if (!ENVELOPE_CLAIMS.has(k) && k !== "constraints") rest[k] = v;
  }
  const claims: Record<string, unknown> = {
    ...rest,
    aud: hostId,
    cnf: { jkt: jwkThumbprint(cnfJwk.value) },
    ...(Object.keys(constraints).length > 0 && { constraints }),
    ...(c.schcp_status !== undefined && { status: c.schcp_status }),
  };
  return ok({ claims, cnfJwk: cnfJwk.value });
}

/** §3.4 "Key Binding JWT": typ, signature by cnf.jwk, aud, iat window, nonce and sd_hash. */
async function verifyKeyBinding(
  compact: string,
  issuerCompact: string,
  disclosures: readonly string[],
  cnfJwk: Ed25519PublicJwk,
  ctx: SdJwtMandateContext,
): Promise<Result<void, MandateRefusal>> {
  const kb = decodeProfileJws(compact, KB_FIELD);
  if (!kb.ok) return invalid(`Key Binding JWT: ${kb.error.message}`, kb.error.field);
  const headerField = childPointer(KB_FIELD, "header");
  for (const name of Object.keys(kb.value.header)) {
    if (!KB_HEADER.has(name)) {
      return invalid(`KB-JWT header member "${name}" is not allowed`, childPointer(headerField, name));
    }
  }
  if (kb.value.header.typ !== KB_JWT_TYP) {
    return invalid(`KB-JWT typ must be "${KB_JWT_TYP}" (§3.4)`, childPointer(headerField, "typ"));
  }
  if (kb.value.header.alg !== algOf(cnfJwk)) {
    return invalid("KB-JWT alg must be EdDSA, the alg of cnf.jwk (§3.4)", childPointer(headerField, "alg"));
  }
  if (!(await verifyProfileSignature(kb.value, cnfJwk))) {
    return invalid("KB-JWT signature does not verify against cnf.jwk (§3.4)", KB_FIELD);
  }
  const p = kb.value.payload;
  const at = (name: string) => childPointer(childPointer(KB_FIELD, "payload"), name);
  for (const name of Object.keys(p)) {
    if (!KB_CLAIMS.has(name)) return invalid(`KB-JWT claim "${name}" is not defined`, at(name));
  }
  if (typeof p.aud !== "string")
    return invalid("KB-JWT aud must be a single string, the host id (§3.4)", at("aud"));
  if (p.aud !== ctx.hostId) return invalid(`KB-JWT aud is not this host (${ctx.hostId})`, at("aud"));
  if (typeof p.nonce !== "string" || p.nonce === "")
    return invalid("KB-JWT nonce is required (§3.4)", at("nonce"));
  if (typeof p.iat !== "number" || !Number.isSafeInteger(p.iat)) {
    return invalid("KB-JWT iat must be a NumericDate in whole seconds", at("iat"));
  }
  if (ctx.nowSec - p.iat > KB_MAX_AGE_SEC) {
    return invalid(
      `KB-JWT iat is more than ${KB_MAX_AGE_SEC} s old; present a fresh KB-JWT (§3.4)`,
      at("iat"),
    );
  }
  if (p.iat - ctx.nowSec > KB_MAX_FUTURE_SEC) {
    return invalid(`KB-JWT iat is more than ${KB_MAX_FUTURE_SEC} s in the future (§3.4)`, at("iat"));
  }
  if (p.sd_hash !== sdHash(issuerCompact, disclosures)) {
    return invalid(
      "KB-JWT sd_hash does not match the issuer JWT and the presented disclosures (§3.4)",
      at("sd_hash"),
    );
  }
  return ok(undefined);
}
