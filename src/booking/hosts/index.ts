/** Hosts: the config file, the embedded default, runtimes, their health and the directory. */
export { parseHostsConfig } from "./parse-config.js";
export { HOSTS_CONFIG_SCHEMA, HOST_ID_PATTERN } from "./config-schema.js";
export { DEFAULT_POLICIES } from "./defaults.js";
export {
  EMBEDDED_CALENDAR_HOST,
  EMBEDDED_CALENDAR_CONFIG,
  EMBEDDED_DEFAULT_CONFIG,
  embeddedCalendarHost,
  embeddedDefaultHosts,
  seedEmbeddedCalendar,
} from "./embedded-default.js";
export { buildHostRuntime, checkAgainstCatalog, type HostRuntimeOptions } from "./runtime.js";
export {
  DEFAULT_HEALTH_POLICY,
  HostHealth,
  type HealthListener,
  type HealthTransition,
  type HostHealthError,
  type HostHealthPolicy,
  type HostHealthState,
  type HostHealthStatus,
} from "./health.js";
export { catalogRefresher, refreshDueCatalogs, type CatalogRefresh } from "./refresh.js";
export { hostNeedsReconnection, hostTimeRefusal } from "./refusals.js";
export { watchConnector } from "./watched-connector.js";
export { createHostDirectory } from "./directory.js";
