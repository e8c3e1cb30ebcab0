/** Calendar push: channel/subscription lifecycle, its store, and push coalescing. */
export { pushCoalescer } from "./coalesce.js";
export { startPushLifecycle, type PushLifecycle, type PushLifecycleDeps } from "./lifecycle.js";
export { RedisPushStore } from "./redis-store.js";
export { MemoryPushStore, type PushStore } from "./store.js";
export {
  type PushEntry,
  type PushHost,
  type PushProvider,
  type PushResult,
  type PushVendor,
  type Timers,
} from "./types.js";
