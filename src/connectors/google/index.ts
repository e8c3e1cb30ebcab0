/** The Google Calendar connector: calendar sync, event writes, push channels (Calendar API v3). */
export {
  createGoogleCalendarConnector,
  type GoogleCalendarConnector,
  type GoogleCalendarDeps,
} from "./connector.js";
export {
  validateGoogleCalendarSettings,
  type GoogleCalendarSettings,
  type ValidGoogleCalendarSettings,
} from "./settings.js";
export {
  checkNotification,
  needsRenewal,
  type ChannelNotification,
  type GoogleNotificationRefusal,
  type WatchChannel,
  type WatchRequest,
} from "./channels.js";
export { googleEventId } from "./ids.js";
export { GOOGLE_CALENDAR_PLATFORM } from "./platform.js";
