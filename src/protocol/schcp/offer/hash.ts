/**
 * offer_sha256 (SchCP §5.3): base64url (no padding) SHA-256 of the exact compact JWS, with
 * no JSON canonicalisation, so every acceptance commits to the bytes the host signed.
 * The same hash names a meeting contract (contract_sha256, §5.12) and a change offer's
 * prev (§5.7).
 */
import { sha256Base64Url } from "../../json/base64.js";

export function offerSha256(compact: string): string {
  // A compact JWS is ASCII, so its UTF-8 bytes are its characters.
  return sha256Base64Url(compact);
}
