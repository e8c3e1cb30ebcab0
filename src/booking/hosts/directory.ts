/** The HostDirectory (api.ts): configured hosts by id, in configuration order. */
import type { HostDirectory, HostRuntime } from "../api.js";

export function createHostDirectory(runtimes: readonly HostRuntime[]): HostDirectory {
  const byId = new Map<string, HostRuntime>();
  for (const r of runtimes) {
    // parseHostsConfig refuses duplicate ids, so one here is a wiring bug.
    if (byId.has(r.config.id)) throw new Error(`host ${r.config.id} is configured twice`);
    byId.set(r.config.id, r);
  }
  const list = [...byId.values()];
  return { get: (hostId) => byId.get(hostId), list: () => list };
}

/**
 * A directory whose hosts change while the process runs (hosts made live from the console).
 * Every reader asks get/list at the time it needs a host, so a change is seen by
 * the next request; list() is a fresh snapshot each time a change was made since the last.
 */
export interface MutableHostDirectory extends HostDirectory {
  /** Serve this host (replacing one with the same id, in its place in the order). */
  put(runtime: HostRuntime): void;
  /** Stop serving this host; false when it was not served. */
  remove(hostId: string): boolean;
}

export function createMutableHostDirectory(runtimes: readonly HostRuntime[]): MutableHostDirectory {
  const byId = new Map<string, HostRuntime>();
  for (const r of runtimes) {
    if (byId.has(r.config.id)) throw new Error(`host ${r.config.id} is configured twice`);
    byId.set(r.config.id, r);
  }
  let list: readonly HostRuntime[] | undefined;
  return {
    get: (hostId) => byId.get(hostId),
    list: () => (list ??= [...byId.values()]),
    put(runtime) {
      byId.set(runtime.config.id, runtime);
      list = undefined;
    },
    remove(hostId) {
      const had = byId.delete(hostId);
      if (had) list = undefined;
      return had;
    },
  };
}
