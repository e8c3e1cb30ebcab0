/**
 * SchCP §3.2 request signatures, the one exact form: signer and verifier. The pieces live
 * in schcp-form.ts (shared form), schcp-sign.ts and schcp-verify.ts.
 */
export type { SignatureRefusal, SignatureRefusalReason, VerifiedRequest } from "./schcp-form.js";
export { signSchcpRequest } from "./schcp-sign.js";
export { verifySchcpRequest } from "./schcp-verify.js";
