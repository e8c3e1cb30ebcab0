/** OSBP booking.create idempotency: the port and its memory, file and Redis stores. */
export * from "./port.js";
export { MemoryIdempotencyStore, decideBegin, type IdempotencyEntry } from "./memory.js";
export { DEFAULT_IDEMPOTENCY_PATH, FileIdempotencyStore, IDEMPOTENCY_PATH_ENV } from "./file.js";
export { RedisIdempotencyStore, type RedisIdempotencyOptions } from "./redis.js";
