/**
 * The CalDAV connector: calendar sync (calendar-query, sync-collection) and event writes
 * (conditional PUT/DELETE) against any CalDAV server, for calendar-fallback hosts.
 */
export { createCaldavConnector, type CaldavConnector } from "./connector.js";
export { validateCaldavSettings } from "./settings.js";
