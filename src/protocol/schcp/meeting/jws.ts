/**
 * Decoding a meeting JWS (a contract, an acceptance) before anything trusts it: the compact
 * envelope, a header of alg, typ and kid only (the signing key comes from the claims, so a
 * second key in the header is one another verifier might use; §3.3 does the same for
 * mandates), the typ asked for, and the claims against their closed schema (§5.12, §7.9).
 */
import { decodeCompactJws } from "../../jose/jws.js";
import type { DecodedJws } from "../../jose/jws.js";
import { parseEd25519PublicJwk } from "../../jose/jwk.js";
import type { Ed25519PublicJwk } from "../../jose/jwk.js";
import { err, ok } from "../../result.js";
import type { Result } from "../../result.js";
import { validateSchcp } from "../validate.js";
import type { SchcpTypeOf } from "../validate.js";
import type { MeetingProblem } from "./problem.js";

const ALLOWED_HEADER = new Set(["alg", "typ", "kid"]);

export interface Decoded<N extends "MeetingContractClaims" | "AcceptanceClaims"> {
  readonly jws: DecodedJws;
  readonly claims: SchcpTypeOf<N>;
}

export function decodeMeetingJws<N extends "MeetingContractClaims" | "AcceptanceClaims">(
  compact: unknown,
  typ: string,
  schema: N,
  problem: (message: string, field?: string) => MeetingProblem,
): Result<Decoded<N>, MeetingProblem> {
  const jws = decodeCompactJws(compact, "");
  if (!jws.ok) return err(problem(`not a valid compact JWS: ${jws.error.message}`, jws.error.field));
  const header = jws.value.header;
  for (const name of Object.keys(header)) {
    if (!ALLOWED_HEADER.has(name)) {
      return err(problem(`JWS header member "${name}" is not allowed`, `/header/${name}`));
    }
  }
  if (header.typ !== typ) return err(problem(`typ must be "${typ}"`, "/header/typ"));
  if (header.kid !== undefined && typeof header.kid !== "string") {
    return err(problem("kid must be a string", "/header/kid"));
  }
  const claims = validateSchcp(schema, jws.value.payload);
  if (!claims.ok) {
    return err(
      problem(`claims do not match ${schema}: ${claims.error.message}`, `/payload${claims.error.field}`),
    );
  }
  return ok({ jws: jws.value, claims: claims.value });
}

/** The signing key as an Ed25519 public JWK (the schema has checked its shape already). */
export function signingJwk(
  value: unknown,
  field: string,
  problem: (message: string, field?: string) => MeetingProblem,
): Result<Ed25519PublicJwk, MeetingProblem> {
  const jwk = parseEd25519PublicJwk(value, field, { allowKid: true, allowUse: true });
  return jwk.ok ? jwk : err(problem(`not an Ed25519 public key: ${jwk.error.message}`, jwk.error.field));
}
