/**
 * The managed hosts' port is the console's, its one user (src/edges/console/managed-hosts.ts):
 * the stores and the runtime in this folder implement it. Re-exported here, not restated, for
 * the composition root's files.
 */
export * from "../../edges/console/managed-hosts.js";
