/** The gateway's OAuth token vault and refresher. See README "Connect a business". */
export { parseKeyRing, TOKEN_KEYS_VARIABLE, KEY_BYTES, type KeyRing } from "./key-ring.js";
export {
  parseTokenRecord,
  DEFAULT_TOKEN_ENDPOINTS,
  OAUTH_PROVIDERS,
  type OAuthProvider,
  type TokenRecord,
} from "./record.js";
export { seal, open, VaultOpenError, type SealedRecord } from "./seal.js";
export { MemorySealedStore, type SealedStore } from "./store.js";
export { FileSealedStore, CREDENTIALS_DIR } from "./file-store.js";
export { RedisSealedStore } from "./redis-store.js";
export { TokenVault } from "./vault.js";
export {
  RedisRefreshLock,
  FileRefreshLock,
  MemoryRefreshLock,
  type RefreshLock,
  type ReleaseRefreshLock,
} from "./refresh-lock.js";
export {
  createTokenProvider,
  isRevokedGrant,
  TokenUnavailableError,
  DEFAULT_REFRESH_MARGIN_MS,
  DEFAULT_REFRESH_LOCK_TTL_MS,
  type TokenProvider,
  type TokenProviderOptions,
} from "./refresher.js";
export { refreshGrant, type OAuthClient, type RefreshOutcome } from "./token-endpoints.js";
export { retryOnceOn401 } from "./retry-on-401.js";
export {
  vaultHostTokens,
  vaultClientOf,
  type VaultCredentials,
  type VaultHostTokens,
} from "./host-tokens.js";
export { vaultCaldavConnector } from "./caldav-vault.js";
