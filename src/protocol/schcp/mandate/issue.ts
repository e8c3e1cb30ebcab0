/**
 * Issuing mandates: what a principal's key app (root) or an agent (child) does.
 * Used by tests and, later, the agent SDK. The host never calls these.
 */
import type { KeyObject } from "node:crypto";
import { jwkThumbprint, principalUrn } from "../../jose/jwk.js";
import type { Ed25519PublicJwk } from "../../jose/jwk.js";
import { decodeCompactJws, signCompactJws } from "../../jose/jws.js";
import type { MandateClaims } from "../types.js";
import { MANDATE_TYP } from "./decode-link.js";

export interface SigningKey {
  readonly privateKey: KeyObject;
  readonly publicJwk: Ed25519PublicJwk;
}

export type RootMandateClaims = Omit<MandateClaims, "iss" | "principal_jwk">;
export type ChildMandateClaims = Omit<
  MandateClaims,
  "iss" | "sub" | "issuer_jwk" | "parent" | "principal_jwk"
>;

/**
 * Signs any claims as a mandate, valid or not: tests use it to forge what a host must
 * refuse. `header` replaces the default {alg: "EdDSA", typ: "schcp-mandate+jwt"}.
 */
export async function signMandateClaims(
  claims: object,
  privateKey: KeyObject,
  header: Record<string, unknown> = { alg: "EdDSA", typ: MANDATE_TYP },
): Promise<string> {
  return signCompactJws(header, claims as Record<string, unknown>, privateKey);
}

/** A root mandate: iss is the principal key's thumbprint URN and principal_jwk the key (§3.3 check 1). */
export async function issueMandate(claims: RootMandateClaims, principal: SigningKey): Promise<string> {
  const iss = principalUrn(jwkThumbprint(principal.publicJwk));
  return signMandateClaims({ ...claims, iss, principal_jwk: principal.publicJwk }, principal.privateKey);
}

/**
 * A child mandate (§3.3 Attenuation), signed by the agent the parent's cnf.jkt names.
 * Copies iss and sub from the parent and carries it exactly. Throws if the parent is
 * not a decodable mandate: the caller holds it and should know.
 */
export async function delegateMandate(
  parentCompact: string,
  claims: ChildMandateClaims,
  agent: SigningKey,
): Promise<string> {
  const parent = decodeCompactJws(parentCompact, "parent");
  if (!parent.ok) throw new Error(`delegateMandate: parent is not a compact JWS: ${parent.error.message}`);
  const payload = parent.value.payload as Partial<Pick<MandateClaims, "iss" | "sub">> | null;
  if (typeof payload?.iss !== "string" || typeof payload.sub !== "string") {
    throw new Error("delegateMandate: parent has no iss or sub");
  }
  return signMandateClaims(
    { ...claims, iss: payload.iss, sub: payload.sub, issuer_jwk: agent.publicJwk, parent: parentCompact },
    agent.privateKey,
  );
}
