/** Hosts: the config file, the embedded default, runtimes and the directory. */
export { parseHostsConfig } from "./parse-config.js";
export { HOSTS_CONFIG_SCHEMA, HOST_ID_PATTERN } from "./config-schema.js";
export { DEFAULT_POLICIES } from "./defaults.js";
export { EMBEDDED_DEFAULT_CONFIG, embeddedDefaultHosts } from "./embedded-default.js";
export { buildHostRuntime, checkAgainstCatalog } from "./runtime.js";
export { createHostDirectory } from "./directory.js";
