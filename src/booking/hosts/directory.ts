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
