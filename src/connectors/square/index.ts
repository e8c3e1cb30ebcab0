/** The Square platform connector and its webhook primitives. */
export { createSquareConnector, SquareSettingsError, type SquareConnector } from "./connector.js";
export { validateSquareSettings, BASE_URLS } from "./settings.js";
export type { SquareDeps } from "./client.js";
export { MAX_SEARCH_MS, MIN_SEARCH_MS, searchWindows } from "./availability.js";
export { parseSquareBookingEvent, verifySquareSignature, type SquareBookingChange } from "./webhooks.js";
