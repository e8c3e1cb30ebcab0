export { createServicialoConnector, SERVICIALO_BOOKING_ABILITIES, SERVICIALO_PLATFORM } from "./connector.js";
export type { ServicialoConnector, ServicialoDeps } from "./connector.js";
export { parseServicialoSettings } from "./settings.js";
export type { ServicialoProvider, ServicialoSettings } from "./settings.js";
