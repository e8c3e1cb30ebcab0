export { createOpeningsConnector } from "./connector.js";
export type { OpeningsConnector } from "./connector.js";
export { parseOpeningsSettings } from "./settings.js";
