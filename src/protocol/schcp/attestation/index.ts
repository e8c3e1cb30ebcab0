/** SchCP attestations (§7.5): issuing one, and which one a host honours. */
export { ATTESTATION_TYP, checkAttestation, honouredAttester } from "./verify.js";
export type { AttestationCheck, AttestationContext, IgnoredReason, TrustedAttester } from "./verify.js";
export { signAttestation } from "./issue.js";
