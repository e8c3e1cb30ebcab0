/**
 * The one exact form of a SchCP request signature (SchCP §3.2), shared by signer and
 * verifier so both derive it from the same code:
 *
 *   Signature-Input: schcp=("@method" "@target-uri" "content-digest" "schcp-mandate");
 *                    created=N;keyid="<thumbprint>";nonce="<b64url>";alg="ed25519"
 *
 * Components in that order, content-digest only for a non-empty body, schcp-mandate only
 * when the SchCP-Mandate header is sent; parameters exactly created, keyid, nonce, alg.
 */
import type { Ed25519PublicJwk } from "../jose/jwk.js";

export const SCHCP_LABEL = "schcp";
export const SCHCP_ALG = "ed25519";
/** SchCP §3.2: a created more than 300 s from the host clock is stale. */
export const SCHCP_MAX_SKEW_SEC = 300;
/** SchCP §3.2: a nonce is remembered until created + 301 s. */
export const SCHCP_NONCE_TTL_SEC = 301;
/** SchCP §3.2: a nonce is at least 16 random bytes. */
export const SCHCP_MIN_NONCE_BYTES = 16;
export const SCHCP_PARAM_ORDER = ["created", "keyid", "nonce", "alg"] as const;

export const SCHCP_HEADERS = {
  signatureInput: "signature-input",
  signature: "signature",
  agentKey: "schcp-agent-key",
  contentDigest: "content-digest",
  mandate: "schcp-mandate",
} as const;

/** SchCP §3.2: a request whose body is zero bytes is bodiless. */
export function schcpComponents(hasBody: boolean, hasMandate: boolean): string[] {
  const components = ["@method", "@target-uri"];
  if (hasBody) components.push(SCHCP_HEADERS.contentDigest);
  if (hasMandate) components.push(SCHCP_HEADERS.mandate);
  return components;
}

/** The inner list + parameters after "schcp=", which is also the "@signature-params" value. */
export function schcpSignatureParams(
  components: readonly string[],
  created: number,
  keyid: string,
  nonce: string,
): string {
  const list = components.map((c) => `"${c}"`).join(" ");
  return `(${list});created=${created};keyid="${keyid}";nonce="${nonce}";alg="${SCHCP_ALG}"`;
}

export interface SchcpSignedHeaders {
  "signature-input": string;
  signature: string;
  "schcp-agent-key": string;
  "content-digest"?: string;
  "schcp-mandate"?: string;
}

export interface VerifiedRequest {
  keyid: string;
  agentJwk: Ed25519PublicJwk;
  created: number;
  nonce: string;
  mandate?: string;
}

export type SignatureRefusalReason = "bad_signature" | "stale_signature" | "replayed_nonce";

/** Maps to SchCP's 401 BAD_SIGNATURE refusal at the HTTP edge (SchCP §3.2, §9.2). */
export interface SignatureRefusal {
  code: "BAD_SIGNATURE";
  reason: SignatureRefusalReason;
  message: string;
  field?: string;
}

export function refusal(reason: SignatureRefusalReason, message: string, field?: string): SignatureRefusal {
  return field === undefined
    ? { code: "BAD_SIGNATURE", reason, message }
    : { code: "BAD_SIGNATURE", reason, message, field };
}
