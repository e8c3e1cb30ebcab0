/**
 * The CalDAV connector: calendar sync (calendar-query, sync-collection) and event writes
 * (conditional PUT/DELETE) against any CalDAV server, for calendar-fallback hosts.
 */
export {
  CALDAV_PLATFORM,
  DEFAULT_TIMEOUT_MS,
  createCaldavConnector,
  type CaldavConnector,
  type CaldavDeps,
} from "./connector.js";
export type { DiscoveredCalendar } from "./discover.js";
export { validateCaldavSettings, type CaldavSettings } from "./settings.js";
export { readResource, type ReadResource } from "./vevent.js";
