/** The fixed names and numbers of SchCP §3.4, shared by the verifier, the issuer and the holder. */
import { sha256Base64Url } from "../../../json/base64.js";

export const SD_JWT_TYP = "dc+sd-jwt";
export const KB_JWT_TYP = "kb+jwt";
/** RFC 9901 §4.1.1: the only hash algorithm this profile accepts. */
export const SD_ALG = "sha-256";
/** §3.4: a KB-JWT's iat is no more than 300 s old and no more than 60 s in the future. */
export const KB_MAX_AGE_SEC = 300;
export const KB_MAX_FUTURE_SEC = 60;

/** §3.4 / RFC 9901 §4.3.1: base64url SHA-256 over the issuer JWT and disclosures, each followed by ~. */
export function sdHash(issuerCompact: string, disclosures: readonly string[]): string {
  return sha256Base64Url(`${issuerCompact}~${disclosures.map((d) => `${d}~`).join("")}`);
}
