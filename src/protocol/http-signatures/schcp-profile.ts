/**
 * SchCP §3.2 request signatures, the one exact form: signer and verifier. The pieces live
 * in schcp-form.ts (shared form), schcp-sign.ts and schcp-verify.ts.
 */
export {
  SCHCP_ALG,
  SCHCP_HEADERS,
  SCHCP_LABEL,
  SCHCP_MAX_SKEW_SEC,
  SCHCP_MIN_NONCE_BYTES,
  SCHCP_NONCE_TTL_SEC,
  SCHCP_PARAM_ORDER,
  schcpComponents,
  schcpSignatureParams,
} from "./schcp-form.js";
export type {
  SchcpSignedHeaders,
  SignatureRefusal,
  SignatureRefusalReason,
  VerifiedRequest,
} from "./schcp-form.js";
export { signSchcpRequest } from "./schcp-sign.js";
export type { SignSchcpRequestInput } from "./schcp-sign.js";
export { verifySchcpRequest } from "./schcp-verify.js";
export type { HeaderLookup, VerifySchcpRequestInput } from "./schcp-verify.js";
