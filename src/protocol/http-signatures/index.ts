export * from "./schcp-profile.js";
export { AGENT_KEY_HEADER, decodeAgentKeyHeader, encodeAgentKeyHeader } from "./agent-key.js";
export { contentDigestSha256, parseContentDigest, verifyContentDigest } from "./content-digest.js";
export { MemoryNonceMemory } from "./nonce-memory.js";
export type { NonceMemory, SecondsClock } from "./nonce-memory.js";
export {
  combinedField,
  readRfc9421Signature,
  verifyEd25519,
  verifyRfc9421Ed25519,
} from "./rfc9421-verify.js";
export type { Rfc9421Signature } from "./rfc9421-verify.js";
export { buildSignatureBase, componentValue, trimOws } from "./signature-base.js";
export type { HttpMessageView } from "./signature-base.js";
export {
  parseDictionary,
  serializeBareItem,
  serializeInnerList,
  serializeItem,
  serializeParams,
} from "./structured-fields.js";
export type { BareItem, DictionaryMember, InnerList, Item, Parameters } from "./structured-fields.js";
