/**
 * A host's signing key: what it signs offers and receipts with (SchCP §2.1). The kid is the
 * one its discovery document lists beside the public key, and every JWS it signs names it,
 * so a verifier picks that discovery key and no other.
 */
import type { KeyObject } from "node:crypto";
import type { Ed25519PublicJwk } from "../../jose/jwk.js";

export interface HostSigningKey {
  kid: string;
  privateKey: KeyObject;
  publicJwk: Ed25519PublicJwk;
}
