/**
 * Where sealed token records live: a small port with a file store (file-store.ts), a Redis
 * store (redis-store.ts) and this in-memory twin for tests. Stores see only sealed JSON (what
 * vault.ts hands them); they never hold a key or a plaintext token.
 */
import { HOST_ID_PATTERN } from "../../booking/hosts/index.js";

export interface SealedStore {
  read(hostId: string): Promise<string | undefined>;
  write(hostId: string, sealed: string): Promise<void>;
  delete(hostId: string): Promise<void>;
  /** Every host with a record (rotate() walks them). */
  list(): Promise<string[]>;
}

/** Host ids become file names and key parts: only ids the config itself accepts (no "/", no ".."). */
const HOST_ID = new RegExp(HOST_ID_PATTERN);

export function checkHostId(hostId: string): void {
  if (!HOST_ID.test(hostId)) throw new Error(`not a host id: "${hostId}"`);
}

export class MemorySealedStore implements SealedStore {
  readonly records = new Map<string, string>();
  read(hostId: string): Promise<string | undefined> {
    return Promise.resolve(this.records.get(hostId));
  }
  write(hostId: string, sealed: string): Promise<void> {
    checkHostId(hostId);
    this.records.set(hostId, sealed);
    return Promise.resolve();
  }
  delete(hostId: string): Promise<void> {
    this.records.delete(hostId);
    return Promise.resolve();
  }
  list(): Promise<string[]> {
    return Promise.resolve([...this.records.keys()].sort());
  }
}
