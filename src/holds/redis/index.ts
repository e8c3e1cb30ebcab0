export {
  createRedisGatewayStore,
  RedisHoldStore,
  type RedisGatewayStoreOptions,
  type RedisStoreOptions,
} from "./redis-store.js";
export type { RedisConnectionOptions } from "../../redis/connection.js";
export { RedisKeys } from "./keys.js";
export type { ReplicaShortfall, ReplicaWaitPolicy } from "./replica-wait.js";
