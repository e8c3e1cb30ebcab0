export { createServicialoConnector, SERVICIALO_PLATFORM } from "./connector.js";
export type { ServicialoConnector } from "./connector.js";
export { parseServicialoSettings } from "./settings.js";
