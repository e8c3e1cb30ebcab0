/** Runtime wiring of a gateway process: stores, connectors, persisted keys, the service, workers. */
export { buildGatewayRuntime, createGatewayRuntime, GatewayConfigError } from "./runtime.js";
export type { GatewayRuntime, GatewayRuntimeOptions } from "./runtime.js";
export { hostKeyPath, keyId, loadOrCreateHostKey } from "./host-keys.js";
export { loadOrCreateOperatorToken, operatorTokenPath } from "./operator-token.js";
export { RedisRateLimiter } from "./redis-rate-limit.js";
export { jsonLinesLogger, randomIds, systemClock } from "./support.js";
export type { WorkerIntervals } from "./workers.js";
