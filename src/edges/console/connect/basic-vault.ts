/**
 * Sealed Basic credentials (a CalDAV host's username and password), under the same key ring
 * and the same AES-256-GCM sealing as the token vault (src/gateway/credentials/sealed-vault.ts), in a
 * store of their own: a FileSealedStore on `<data dir>/basic` or a RedisSealedStore whose
 * prefix adds `basic:`. Kept apart so the TokenVault's get/rotate never meet a record that is
 * not a grant; the `basic:` AAD makes one never readable as the other.
 */
import type { KeyRing } from "../../../gateway/credentials/key-ring.js";
import {
  parseBasicCredentialRecord,
  type BasicCredentialRecord,
} from "../../../gateway/credentials/record.js";
import { SealedVault } from "../../../gateway/credentials/sealed-vault.js";
import type { SealedStore } from "../../../gateway/credentials/store.js";

export class BasicCredentialVault extends SealedVault<BasicCredentialRecord> {
  constructor(ring: KeyRing, store: SealedStore) {
    super(ring, store, { parse: parseBasicCredentialRecord, aad: (hostId) => `basic:${hostId}` });
  }
}
