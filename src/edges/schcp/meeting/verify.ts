/**
 * Reading SchCP §5.12 meeting contracts, acceptances and §7.9 rules: closed claims, Ed25519
 * signatures by the key they carry, the signer being that key's principal. What each means
 * for one calendar is decided in contract.ts and acceptance.ts.
 */
import {
  decodeCompactJws,
  jwkThumbprint,
  parseEd25519PublicJwk,
  principalUrn,
  verifyJwsSignature,
} from "../../../protocol/jose/index.js";
import type { Ed25519PublicJwk } from "../../../protocol/jose/index.js";
import { err, ok } from "../../../protocol/result.js";
import type { Result } from "../../../protocol/result.js";
import { validateSchcp, type SchcpTypeOf } from "../../../protocol/schcp/validate.js";

type Signed = "MeetingContractClaims" | "AcceptanceClaims" | "RuleClaims";

const TYP: Record<Signed, string> = {
  MeetingContractClaims: "schcp-meeting+jwt",
  AcceptanceClaims: "schcp-acceptance+jwt",
  RuleClaims: "schcp-rule+jwt",
};

export interface Verified<N extends Signed> {
  readonly claims: SchcpTypeOf<N>;
  readonly jwk: Ed25519PublicJwk;
}

/**
 * Decodes and verifies `compact` as `schema`, signed by the key in `keyMember` (principal_jwk
 * or jwk). `selfIssued`: iss must be that key's principal (contracts and rules; an
 * acceptance by rule is signed by the agent's key, not the member's).
 */
export async function verifySigned<N extends Signed>(
  schema: N,
  compact: unknown,
  keyMember: "principal_jwk" | "jwk",
  selfIssued: boolean,
): Promise<Result<Verified<N>, string>> {
  const decoded = decodeCompactJws(compact, "");
  if (!decoded.ok) return err(`not a compact JWS: ${decoded.error.message}`);
  const typ = decoded.value.header["typ"];
  if (typ !== undefined && typ !== TYP[schema]) return err(`typ must be ${TYP[schema]}`);
  const claims = validateSchcp(schema, decoded.value.payload);
  if (!claims.ok) return err(`${claims.error.field} ${claims.error.message}`);
  const jwk = parseEd25519PublicJwk(decoded.value.payload[keyMember], keyMember, {
    allowKid: true,
  });
  if (!jwk.ok) return err(`${keyMember}: ${jwk.error.message}`);
  if (!(await verifyJwsSignature(decoded.value, jwk.value))) return err("the signature does not verify");
  const iss = (claims.value as { iss: string }).iss;
  if (selfIssued && iss !== principalUrn(jwkThumbprint(jwk.value)))
    return err("iss is not the signing key's principal");
  return ok({ claims: claims.value, jwk: jwk.value });
}
