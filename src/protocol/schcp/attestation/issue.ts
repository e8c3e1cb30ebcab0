/**
 * Issuing an attestation (SchCP §7.5): what an attester does once it has checked something
 * scarce about a principal key. The host never calls this.
 */
import type { KeyObject } from "node:crypto";
import { signCompactJws } from "../../jose/jws.js";
import type { AttestationClaims } from "../types.js";
import { ATTESTATION_TYP } from "./verify.js";

/**
 * Signs claims as an attestation, valid or not (tests forge what a host must ignore).
 * `header` replaces the default {alg: "EdDSA", typ: "schcp-attestation+jwt"}; a kid, when
 * given, is added to the default header.
 */
export function signAttestation(
  claims: AttestationClaims | Record<string, unknown>,
  privateKey: KeyObject,
  opts: { readonly kid?: string; readonly header?: Record<string, unknown> } = {},
): Promise<string> {
  const header = opts.header ?? {
    alg: "EdDSA",
    typ: ATTESTATION_TYP,
    ...(opts.kid !== undefined && { kid: opts.kid }),
  };
  return signCompactJws(header, claims as Record<string, unknown>, privateKey);
}
