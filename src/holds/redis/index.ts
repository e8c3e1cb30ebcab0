export { createRedisGatewayStore, RedisHoldStore } from "./redis-store.js";
export { RedisKeys } from "./keys.js";
export type { ReplicaWaitPolicy } from "./replica-wait.js";
