/**
 * Where the live channels/subscriptions are kept: every gateway process must authenticate a
 * notification against the channel whichever process made it, so with Redis they live there
 * (redis-store.ts); the embedded default keeps them in memory. Keyed by host, then by the id
 * a notification names, so a receiver finds its entry in one read.
 *
 * `lock` lets one process at a time open or renew a host's channels (the others then find
 * the result and only re-arm their timers); undefined means someone else holds it.
 */
import type { PushEntry } from "./types.js";

export type Release = () => Promise<void>;

export interface PushStore {
  list(hostId: string): Promise<readonly PushEntry[]>;
  get(hostId: string, id: string): Promise<PushEntry | undefined>;
  put(hostId: string, entry: PushEntry): Promise<void>;
  delete(hostId: string, id: string): Promise<void>;
  lock(hostId: string, ttlMs: number): Promise<Release | undefined>;
  /** True when the entries outlive this process (then close() leaves channels open). */
  readonly shared: boolean;
}

export class MemoryPushStore implements PushStore {
  readonly shared = false;
  readonly #entries = new Map<string, Map<string, PushEntry>>();
  readonly #locked = new Set<string>();

  list(hostId: string): Promise<readonly PushEntry[]> {
    return Promise.resolve([...(this.#entries.get(hostId)?.values() ?? [])]);
  }
  get(hostId: string, id: string): Promise<PushEntry | undefined> {
    return Promise.resolve(this.#entries.get(hostId)?.get(id));
  }
  put(hostId: string, entry: PushEntry): Promise<void> {
    let host = this.#entries.get(hostId);
    if (host === undefined) this.#entries.set(hostId, (host = new Map<string, PushEntry>()));
    host.set(entry.id, entry);
    return Promise.resolve();
  }
  delete(hostId: string, id: string): Promise<void> {
    this.#entries.get(hostId)?.delete(id);
    return Promise.resolve();
  }
  lock(hostId: string): Promise<Release | undefined> {
    if (this.#locked.has(hostId)) return Promise.resolve(undefined);
    this.#locked.add(hostId);
    return Promise.resolve(() => {
      this.#locked.delete(hostId);
      return Promise.resolve();
    });
  }
}
