/** The Square platform connector and its webhook primitives. */
export { createSquareConnector, SquareSettingsError, type SquareConnector } from "./connector.js";
export {
  validateSquareSettings,
  BASE_URLS,
  type SquareSettings,
  type SquareEnvironmentName,
} from "./settings.js";
export { SQUARE_VENDOR, type SquareDeps, type SquareTokenProvider } from "./client.js";
export { MAX_SEARCH_MS, MIN_SEARCH_MS, searchWindows } from "./availability.js";
export {
  MemoryEventDeduplicator,
  parseSquareBookingEvent,
  SQUARE_SIGNATURE_HEADER,
  verifySquareSignature,
  type EventDeduplicator,
  type SquareBookingChange,
  type SquareSignatureInput,
} from "./webhooks.js";
