/** The Microsoft 365 calendar connector: calendarView delta sync, event writes, subscriptions (Graph v1.0). */
export {
  createMicrosoftCalendarConnector,
  type MicrosoftCalendarConnector,
  type MicrosoftCalendarDeps,
} from "./connector.js";
export {
  validateMicrosoftCalendarSettings,
  type MicrosoftCalendarSettings,
  type ValidMicrosoftCalendarSettings,
} from "./settings.js";
export {
  MAX_EVENT_SUBSCRIPTION_MS,
  needsRenewal,
  type Subscription,
  type SubscriptionRequest,
} from "./subscriptions.js";
export {
  answerValidation,
  checkNotifications,
  type ChangeNotification,
  type GraphNotificationRefusal,
} from "./notifications.js";
export { MICROSOFT_GRAPH_PLATFORM } from "./platform.js";
