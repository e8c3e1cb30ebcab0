export * from "./schcp-profile.js";
export { encodeAgentKeyHeader } from "./agent-key.js";
export { MemoryNonceMemory } from "./nonce-memory.js";
export type { NonceMemory } from "./nonce-memory.js";
