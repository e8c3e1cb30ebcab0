/** The Microsoft 365 calendar connector: calendarView delta sync, event writes, subscriptions (Graph v1.0). */
export { createMicrosoftCalendarConnector, type MicrosoftCalendarConnector } from "./connector.js";
export { validateMicrosoftCalendarSettings, type MicrosoftCalendarSettings } from "./settings.js";
export { MAX_EVENT_SUBSCRIPTION_MS, needsRenewal } from "./subscriptions.js";
export { answerValidation, checkNotifications } from "./notifications.js";
