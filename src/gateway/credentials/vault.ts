/**
 * The token vault: OAuth grants (record.ts TokenRecord) sealed per host under the key ring from
 * TOKEN_KEYS, in a SealedStore (file, Redis, memory); see sealed-vault.ts for writes, rotation
 * and the binding of a record to its host (the host id is the additional authenticated data).
 */
import type { KeyRing } from "./key-ring.js";
import { parseTokenRecord, type TokenRecord } from "./record.js";
import { SealedVault } from "./sealed-vault.js";
import type { SealedStore } from "./store.js";

export class TokenVault extends SealedVault<TokenRecord> {
  constructor(ring: KeyRing, store: SealedStore) {
    super(ring, store, { parse: parseTokenRecord, aad: (hostId) => hostId });
  }
}
