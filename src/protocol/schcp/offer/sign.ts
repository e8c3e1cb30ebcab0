/**
 * Signing an offer (SchCP §5.2). The host checks the claims first, schema and money rules
 * alike, because a host never signs an offer an agent must refuse. The endpoint signs once,
 * when the hold is created, and keeps the bytes: Ed25519 is deterministic, so the same claims
 * under the same key give the same compact JWS and the same offer_sha256 anyway.
 */
import { signCompactJws } from "../../jose/jws.js";
import { ok } from "../../result.js";
import type { Result } from "../../result.js";
import type { OfferClaims } from "../types.js";
import { checkOfferClaims } from "./claims.js";
import type { HostSigningKey } from "./host-key.js";

export const OFFER_TYP = "schcp-offer+jwt";

/** Errors are offer_invalid with a JSON pointer into the claims. */
export async function signOffer(claims: OfferClaims, key: HostSigningKey): Promise<Result<string>> {
  const checked = checkOfferClaims(claims);
  if (!checked.ok) return checked;
  const header = { alg: "EdDSA", typ: OFFER_TYP, kid: key.kid };
  return ok(await signCompactJws(header, { ...claims }, key.privateKey));
}
