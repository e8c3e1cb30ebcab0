/**
 * A stand-in for the console's managed hosts (src/gateway/managed-hosts/port.ts) until the
 * real runtime is merged: records in the real memory store, so a test can say which owner owns
 * which host. The hosts themselves are served by the runtime from its config; here they only
 * gain an owner. activate/deactivate are not what these tests exercise and say so if called.
 */
import { MemoryManagedHostStore } from "../../src/gateway/managed-hosts/memory-store.js";
import type {
  ManagedHostRecord,
  ManagedHostStore,
  ManagedHosts,
} from "../../src/edges/console/managed-hosts.js";

/** The real in-memory store (src/gateway/managed-hosts/memory-store.ts): its per-owner index included. */
export { MemoryManagedHostStore };

/** An active record saying `owner` owns the (config-served) host `id`. */
export function ownedHost(id: string, owner: string, at = Date.now()): ManagedHostRecord {
  return { id, owner, source: "square", state: "active", config: { id }, createdAt: at, updatedAt: at };
}

export function managedHostsDouble(store: ManagedHostStore = new MemoryManagedHostStore()): ManagedHosts {
  const notHere = (what: string) => () => Promise.reject(new Error(`${what}: not part of this double`));
  return {
    store,
    activate: notHere("activate"),
    deactivate: notHere("deactivate"),
    idAvailable: async (id) => (await store.get(id)) === undefined,
    reconcile: () => Promise.resolve(),
  };
}
