export {
  PRINCIPAL_URN_PREFIX,
  ed25519PrivateKeyFromJwk,
  ed25519PublicJwkOf,
  ed25519PublicKeyFromJwk,
  generateEd25519KeyPair,
  jwkThumbprint,
  parseEd25519PublicJwk,
  principalUrn,
} from "./jwk.js";
export type { Ed25519PrivateJwk, Ed25519PublicJwk, ParseJwkOptions } from "./jwk.js";
export { decodeCompactJws, signCompactJws, signCompactJwsBytes, verifyJwsSignature } from "./jws.js";
export type { DecodedJws } from "./jws.js";
