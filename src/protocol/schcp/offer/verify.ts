/**
 * Verifying an offer, as an agent MUST before it shows the offer to anyone (SchCP §5.2):
 *
 * 1. typ is exactly schcp-offer+jwt; the header's kid names a discovery key (never a key
 *    from anywhere else, §2.1) and the signature verifies with it (host-jws.ts);
 * 2. the claims pass checkOfferClaims: the closed schema, open_end, change offers and the
 *    money rules, so a validly signed offer with an unknown term is still refused;
 * 3. iss is the host the agent discovered, when the caller says which.
 *
 * The offer's own exp is not checked: the hold's expires_at governs how long the terms can
 * be accepted (§5.2, §5.3), and the spec gives no rule that refuses an offer on its exp.
 * Field names: "/header/kid", "/signature", "/payload/slot/end", ….
 */
import type { Money } from "../../money/index.js";
import { err, fieldError, ok } from "../../result.js";
import type { FieldError, Result } from "../../result.js";
import type { Jwk, OfferClaims } from "../types.js";
import { checkOfferClaims } from "./claims.js";
import { offerSha256 } from "./hash.js";
import { payloadField, verifyHostJws } from "./host-jws.js";
import { OFFER_TYP } from "./sign.js";

export interface VerifiedOffer {
  claims: OfferClaims;
  compact: string;
  sha256: string;
  kid: string;
  total: Money | null;
}

export type OfferCheckError = FieldError<"offer_invalid">;

export interface VerifyOfferOptions {
  /** The host id the offer must come from (its iss). */
  expectedIss?: string;
  /** Unused today: an offer's exp does not refuse it (see above). Kept for callers' clocks. */
  nowSec?: number;
}

export async function verifyOffer(
  compact: unknown,
  discoveryKeys: readonly Jwk[],
  opts: VerifyOfferOptions = {},
): Promise<Result<VerifiedOffer, OfferCheckError>> {
  const refuse = (field: string, message: string) => err(fieldError("offer_invalid", field, message));
  const jws = await verifyHostJws(compact, discoveryKeys, OFFER_TYP, "offer_invalid");
  if (!jws.ok) return jws;

  const checked = checkOfferClaims(jws.value.decoded.payload);
  if (!checked.ok) return refuse(payloadField(checked.error.field), checked.error.message);
  const { claims, total } = checked.value;
  if (opts.expectedIss !== undefined && claims.iss !== opts.expectedIss) {
    return refuse("/payload/iss", `the offer is from "${claims.iss}", not the host "${opts.expectedIss}"`);
  }
  const signed = jws.value.decoded.compact;
  return ok({ claims, compact: signed, sha256: offerSha256(signed), kid: jws.value.kid, total });
}
