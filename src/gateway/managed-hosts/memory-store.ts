/** ManagedHostStore in memory: tests, and the shape the file and Redis stores must match. */
import type { ManagedHostRecord, ManagedHostStore } from "./port.js";

export class MemoryManagedHostStore implements ManagedHostStore {
  private readonly records = new Map<string, ManagedHostRecord>();
  private counter = 0;

  list(): Promise<ManagedHostRecord[]> {
    return Promise.resolve([...this.records.values()]);
  }

  get(id: string): Promise<ManagedHostRecord | undefined> {
    return Promise.resolve(this.records.get(id));
  }

  put(record: ManagedHostRecord, ifUpdatedAt?: number): Promise<"ok" | "exists" | "conflict"> {
    const stored = this.records.get(record.id);
    if (ifUpdatedAt === undefined && stored !== undefined) return Promise.resolve("exists");
    if (ifUpdatedAt !== undefined && stored?.updatedAt !== ifUpdatedAt) return Promise.resolve("conflict");
    this.records.set(record.id, record);
    this.counter += 1;
    return Promise.resolve("ok");
  }

  delete(id: string): Promise<void> {
    if (this.records.delete(id)) this.counter += 1;
    return Promise.resolve();
  }

  version(): Promise<string> {
    return Promise.resolve(String(this.counter));
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
