/** Connecting a business's system of record: OAuth for Square, Google, Microsoft; CalDAV. */
export {
  resolveProviders,
  redirectUriFor,
  ConnectConfigError,
  SQUARE_SCOPES,
  GOOGLE_SCOPES,
  MICROSOFT_SCOPES,
  type ConnectSettings,
  type ProviderSettings,
  type ResolvedProvider,
} from "./providers.js";
export {
  MemoryConnectStateStore,
  RedisConnectStateStore,
  STATE_TTL_MS,
  type ConnectStateStore,
  type PendingConnect,
} from "./state-store.js";
export {
  createConnect,
  type Connect,
  type ConnectDeps,
  type ConnectFailure,
  type ConnectFailureKind,
  type ConnectSuccess,
  type StartRequest,
} from "./flow.js";
export { BasicCredentialVault } from "./basic-vault.js";
export {
  checkCaldav,
  connectCaldav,
  type CaldavCheck,
  type CaldavCheckFailure,
  type CaldavCheckRequest,
} from "./caldav.js";
export { connectRoutes, type ConnectRoutesOptions } from "./routes.js";
