/** Offer pricing (SchCP §5.2 all-in totals): service, fees, surcharges and tax lines, exact. */
export { priceOffer, type PricedOffer } from "./price-offer.js";
export { allInPrice } from "./all-in.js";
export { surchargeApplies } from "./surcharges.js";
