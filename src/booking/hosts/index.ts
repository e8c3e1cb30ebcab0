/** Hosts: the config file, the embedded default, runtimes, their health and the directory. */
export { parseHostsConfig } from "./parse-config.js";
export { HOST_ID_PATTERN } from "./config-schema.js";
export { DEFAULT_POLICIES } from "./defaults.js";
export {
  EMBEDDED_BRANCH_CONFIG,
  EMBEDDED_CALENDAR_CONFIG,
  EMBEDDED_DEFAULT_CONFIG,
  embeddedBranchHost,
  embeddedCalendarHost,
  embeddedDefaultHosts,
  seedEmbeddedCalendar,
} from "./embedded-default.js";
export {
  ELLIS_RULE,
  EMBEDDED_CAFE,
  EMBEDDED_PEOPLE,
  embeddedMeetingConfig,
  embeddedMeetingHosts,
  seedEmbeddedMeetingCalendars,
  type EmbeddedPersonId,
} from "./embedded-meeting.js";
export { buildHostRuntime, checkAgainstCatalog } from "./runtime.js";
export { DEFAULT_HEALTH_POLICY, HostHealth, type HealthTransition, type HostHealthPolicy } from "./health.js";
export { refreshDueCatalogs } from "./refresh.js";
export { createHostDirectory } from "./directory.js";
