export type { HostSigningKey } from "./host-key.js";
export { offerSha256 } from "./hash.js";
export { checkOfferMoney } from "./money-rules.js";
export { checkOfferClaims, type CheckedOffer } from "./claims.js";
export { verifyHostJws, payloadField, type HostJws } from "./host-jws.js";
export { OFFER_TYP, signOffer } from "./sign.js";
export { verifyOffer, type OfferCheckError, type VerifiedOffer, type VerifyOfferOptions } from "./verify.js";
