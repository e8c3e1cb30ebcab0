export type { PublicPoolStore } from "./port.js";
export { MemoryPublicPool } from "./memory-store.js";
export { RedisPublicPool } from "./redis-store.js";
export { drawsOnPublicPool } from "./standing.js";
export { takePublicPlace } from "./take-place.js";
