/** The Google Calendar connector: calendar sync, event writes, push channels (Calendar API v3). */
export { createGoogleCalendarConnector, type GoogleCalendarConnector } from "./connector.js";
export { validateGoogleCalendarSettings } from "./settings.js";
export { checkNotification, needsRenewal } from "./channels.js";
export { googleEventId } from "./ids.js";
