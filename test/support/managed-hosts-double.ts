/**
 * A stand-in for the console's managed hosts (src/gateway/managed-hosts/port.ts) until the
 * real store and runtime are merged: records in memory, so a test can say which owner owns
 * which host. The hosts themselves are served by the runtime from its config; here they only
 * gain an owner. activate/deactivate are not what these tests exercise and say so if called.
 */
import type {
  ManagedHostRecord,
  ManagedHostStore,
  ManagedHosts,
} from "../../src/gateway/managed-hosts/port.js";

export class MemoryManagedHostStore implements ManagedHostStore {
  private readonly records = new Map<string, ManagedHostRecord>();
  private writes = 0;

  list(): Promise<ManagedHostRecord[]> {
    return Promise.resolve([...this.records.values()]);
  }

  get(id: string): Promise<ManagedHostRecord | undefined> {
    return Promise.resolve(this.records.get(id));
  }

  put(record: ManagedHostRecord, ifUpdatedAt?: number): Promise<"ok" | "exists" | "conflict"> {
    const had = this.records.get(record.id);
    if (ifUpdatedAt === undefined && had !== undefined) return Promise.resolve("exists");
    if (ifUpdatedAt !== undefined && had?.updatedAt !== ifUpdatedAt) return Promise.resolve("conflict");
    this.records.set(record.id, record);
    this.writes += 1;
    return Promise.resolve("ok");
  }

  delete(id: string): Promise<void> {
    this.records.delete(id);
    this.writes += 1;
    return Promise.resolve();
  }

  version(): Promise<string> {
    return Promise.resolve(String(this.writes));
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

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
