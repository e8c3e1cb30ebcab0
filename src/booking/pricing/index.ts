/** Offer pricing (SchCP §5.2 all-in totals): service, fees, surcharges and tax lines, exact. */
export { priceOffer, type PriceQuery, type PricedOffer, type PricingHost } from "./price-offer.js";
export { allInPrice } from "./all-in.js";
export { DEFAULT_AFTER_HOURS, surchargeApplies } from "./surcharges.js";
