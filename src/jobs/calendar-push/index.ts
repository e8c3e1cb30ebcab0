/** Calendar push: channel/subscription lifecycle, its store, and push coalescing. */
export { DEFAULT_PUSH_WINDOW_MS, pushCoalescer, type PushCoalescer } from "./coalesce.js";
export {
  DEFAULT_PUSH_RETRY_MS,
  DEFAULT_RENEW_BEFORE_MS,
  startPushLifecycle,
  type PushLifecycle,
  type PushLifecycleDeps,
  type RecheckHint,
} from "./lifecycle.js";
export { RedisPushStore } from "./redis-store.js";
export { MemoryPushStore, type PushStore, type Release } from "./store.js";
export {
  realTimers,
  type PushEntry,
  type PushHost,
  type PushProvider,
  type PushResult,
  type PushVendor,
  type Timers,
} from "./types.js";
