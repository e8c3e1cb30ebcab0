/**
 * The jobs layer: webhook delivery (SchCP §5.8) through a public-only transport, and the
 * periodic maintenance workers (sweeper, reconciliation, approval timeouts).
 */
export * from "./webhooks/index.js";
export * from "./maintenance/index.js";
export * from "./outbound/index.js";
export { consoleJobLogger } from "./logger.js";
export { realScheduler, type Scheduler } from "./scheduler.js";
export { createGatewayJobs, type GatewayJobs, type GatewayJobsOptions } from "./runtime.js";
