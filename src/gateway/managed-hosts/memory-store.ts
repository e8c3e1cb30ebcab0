/** ManagedHostStore in memory: tests, and the shape the file and Redis stores must match. */
import { OwnerIndex } from "./owner-index.js";
import type {
  CreateAnswer,
  ManagedHostRecord,
  ManagedHostStore,
  OwnerCaps,
} from "../../edges/console/managed-hosts.js";

export class MemoryManagedHostStore implements ManagedHostStore {
  private readonly records = new Map<string, ManagedHostRecord>();
  private readonly owners = new OwnerIndex();
  private counter = 0;

  list(): Promise<ManagedHostRecord[]> {
    return Promise.resolve([...this.records.values()]);
  }

  listOwnedBy(owner: string): Promise<ManagedHostRecord[]> {
    return Promise.resolve(
      this.owners.ids(owner).flatMap((id) => {
        const r = this.records.get(id);
        return r === undefined ? [] : [r];
      }),
    );
  }

  get(id: string): Promise<ManagedHostRecord | undefined> {
    return Promise.resolve(this.records.get(id));
  }

  create(record: ManagedHostRecord, caps: OwnerCaps): Promise<CreateAnswer> {
    if (this.records.has(record.id)) return Promise.resolve("exists");
    const over = this.owners.overCap(record, caps);
    if (over !== undefined) return Promise.resolve(over);
    this.write(record);
    return Promise.resolve("ok");
  }

  put(record: ManagedHostRecord, ifUpdatedAt?: number): Promise<"ok" | "exists" | "conflict"> {
    const stored = this.records.get(record.id);
    if (ifUpdatedAt === undefined && stored !== undefined) return Promise.resolve("exists");
    if (ifUpdatedAt !== undefined && (stored?.updatedAt !== ifUpdatedAt || stored.owner !== record.owner))
      return Promise.resolve("conflict");
    this.write(record);
    return Promise.resolve("ok");
  }

  delete(id: string): Promise<void> {
    const stored = this.records.get(id);
    if (stored !== undefined) {
      this.records.delete(id);
      this.owners.delete(stored);
      this.counter += 1;
    }
    return Promise.resolve();
  }

  version(): Promise<string> {
    return Promise.resolve(String(this.counter));
  }

  close(): Promise<void> {
    return Promise.resolve();
  }

  private write(record: ManagedHostRecord): void {
    this.records.set(record.id, record);
    this.owners.set(record);
    this.counter += 1;
  }
}
