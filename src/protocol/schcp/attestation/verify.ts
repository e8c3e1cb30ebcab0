/**
 * Attestations (SchCP §7.5), from the host's side: which attester, if any, the host honours for
 * a verified mandate chain's principal.
 *
 * "The host honours it only if iss is listed in its own trust.attesters, the signature verifies
 * against that attester's keys, sub equals the mandate's principal and iat ≤ now < exp.
 * Anything else is ignored, never rejected: an attestation can only add trust."
 *
 * So nothing here returns a refusal: an attestation that fails a check is an ignored one, with
 * the reason kept for logs and tests. Only the root mandate's attestations are read (§3.3
 * "attestations describe the principal key, so a host reads them from the root only").
 */
import type { Ed25519PublicJwk } from "../../jose/jwk.js";
import { decodeCompactJws, verifyJwsSignature } from "../../jose/jws.js";
import type { AttestationClaims } from "../types.js";
import { validateSchcp } from "../validate.js";

/** §7.5: the JWS typ of an attestation. */
export const ATTESTATION_TYP = "schcp-attestation+jwt";

/** One entry of the host's trust.attesters (§2.1), its keys already parsed as Ed25519. */
export interface TrustedAttester {
  readonly id: string;
  readonly name?: string;
  readonly keys: readonly Ed25519PublicJwk[];
}

/** Why an attestation was ignored (never a refusal, §7.5). */
export type IgnoredReason =
  | "not_a_jws"
  | "wrong_typ"
  | "invalid_claims"
  | "untrusted_attester"
  | "bad_signature"
  | "wrong_subject"
  | "not_yet_valid"
  | "expired";

export type AttestationCheck =
  | { readonly honoured: true; readonly attester: string; readonly claims: AttestationClaims }
  | { readonly honoured: false; readonly reason: IgnoredReason };

export interface AttestationContext {
  /** The mandate's principal: the root's iss (§3.3 check 1). */
  readonly principal: string;
  /** The host's trust.attesters; none means every attestation is ignored (§7.5 "trusts none"). */
  readonly trusted: readonly TrustedAttester[];
  /** Unix seconds. */
  readonly nowSec: number;
}

const ignored = (reason: IgnoredReason): AttestationCheck => ({ honoured: false, reason });

/** One attestation against §7.5's four conditions. Never throws. */
export async function checkAttestation(compact: unknown, ctx: AttestationContext): Promise<AttestationCheck> {
  // decodeCompactJws already insists on alg "EdDSA" (§3.4: the algorithm follows from the key).
  const decoded = decodeCompactJws(compact, "attestation");
  if (!decoded.ok) return ignored("not_a_jws");
  if (decoded.value.header.typ !== ATTESTATION_TYP) return ignored("wrong_typ");
  const claims = validateSchcp("AttestationClaims", decoded.value.payload);
  if (!claims.ok) return ignored("invalid_claims");
  const c = claims.value;
  const attester = ctx.trusted.find((a) => a.id === c.iss);
  if (attester === undefined) return ignored("untrusted_attester");
  let signed = false;
  for (const key of attester.keys) {
    if (await verifyJwsSignature(decoded.value, key)) {
      signed = true;
      break;
    }
  }
  if (!signed) return ignored("bad_signature");
  if (c.sub !== ctx.principal) return ignored("wrong_subject");
  // iat ≤ now < exp, as written: unlike a mandate's iat (§3.3 check 3), no skew is granted.
  if (c.iat > ctx.nowSec) return ignored("not_yet_valid");
  if (ctx.nowSec >= c.exp) return ignored("expired");
  return { honoured: true, attester: attester.id, claims: c };
}

/**
 * The first attestation of the root mandate the host honours, or undefined. At most four are
 * carried (§3.3, checked by the MandateClaims schema), so each is checked in turn.
 */
export async function honouredAttester(
  attestations: readonly unknown[] | undefined,
  ctx: AttestationContext,
): Promise<string | undefined> {
  if (attestations === undefined || ctx.trusted.length === 0) return undefined;
  for (const compact of attestations) {
    const check = await checkAttestation(compact, ctx);
    if (check.honoured) return check.attester;
  }
  return undefined;
}
