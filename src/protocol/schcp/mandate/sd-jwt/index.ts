/**
 * SchCP §3.4: SD-JWT VC mandates (the AP2 credential profile), the key app's and the agent's
 * side. Hosts verify through mandate/verify.ts (verifyMandate with acceptSdJwt), whose
 * signature checks use jose; nothing here does, so the agent SDK needs no JOSE dependency.
 */
export { issueSdJwtMandate } from "./issue.js";
export type { IssuedSdJwtMandate, SdJwtIssueOptions, SdJwtMandateClaims } from "./issue.js";
export { signJws } from "./keys.js";
export type { P256PublicJwk, PrincipalPublicJwk, SdJwtAlg, SdJwtSigningKey } from "./keys.js";
export { presentSdJwtMandate } from "./present.js";
export type { PresentOptions } from "./present.js";
export { sdHash } from "./profile.js";
