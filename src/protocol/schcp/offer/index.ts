export type { HostSigningKey } from "./host-key.js";
export { offerSha256 } from "./hash.js";
export { checkOfferMoney } from "./money-rules.js";
export { signOffer } from "./sign.js";
export { verifyOffer, type VerifiedOffer } from "./verify.js";
