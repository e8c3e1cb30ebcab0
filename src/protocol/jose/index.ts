export {
  ed25519PrivateKeyFromJwk,
  ed25519PublicJwkOf,
  ed25519PublicKeyFromJwk,
  generateEd25519KeyPair,
  jwkThumbprint,
  parseEd25519PublicJwk,
  principalUrn,
} from "./jwk.js";
export type { Ed25519PrivateJwk, Ed25519PublicJwk } from "./jwk.js";
export { decodeCompactJws, signCompactJws, verifyJwsSignature } from "./jws.js";
