export { DEFAULT_POOL_CAPS, type PoolCaps, type PublicPoolStore, type TakeOutcome } from "./port.js";
export { MemoryPublicPool } from "./memory-store.js";
export { RedisPublicPool } from "./redis-store.js";
export { drawsOnPublicPool } from "./standing.js";
export { originTag, poolCaps, takePublicPlace } from "./take-place.js";
