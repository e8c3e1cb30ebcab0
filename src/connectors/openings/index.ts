export { createOpeningsConnector, OPENINGS_BOOKING_ABILITIES, OPENINGS_PLATFORM } from "./connector.js";
export type { OpeningsConnector, OpeningsDeps } from "./connector.js";
export { parseOpeningsSettings } from "./settings.js";
export type { OpeningsSettings } from "./settings.js";
