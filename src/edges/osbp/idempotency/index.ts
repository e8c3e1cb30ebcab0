/**
 * OSBP booking.create idempotency: the core's store port (src/booking/idempotency) with the
 * receipt as the kept answer, and its memory, file and Redis stores.
 */
export * from "./port.js";
export { MemoryIdempotencyStore } from "./memory.js";
export { DEFAULT_IDEMPOTENCY_PATH, FileIdempotencyStore, IDEMPOTENCY_PATH_ENV } from "./file.js";
export { RedisIdempotencyStore, type RedisIdempotencyOptions } from "./redis.js";
