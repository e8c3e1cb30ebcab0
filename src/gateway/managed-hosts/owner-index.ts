/**
 * The per-owner index the memory and file stores keep (the Redis store keeps its own in Redis):
 * owner -> (host id -> state), so an owner's records are found without reading anyone else's
 * and caps are counted without reading any record.
 */
import type {
  CreateAnswer,
  ManagedHostRecord,
  ManagedHostState,
  OwnerCaps,
} from "../../edges/console/managed-hosts.js";

export class OwnerIndex {
  readonly #owners = new Map<string, Map<string, ManagedHostState>>();

  static of(records: Iterable<ManagedHostRecord>): OwnerIndex {
    const index = new OwnerIndex();
    for (const r of records) index.set(r);
    return index;
  }

  ids(owner: string): string[] {
    return [...(this.#owners.get(owner)?.keys() ?? [])].sort();
  }

  set(r: Pick<ManagedHostRecord, "id" | "owner" | "state">): void {
    let mine = this.#owners.get(r.owner);
    if (mine === undefined) this.#owners.set(r.owner, (mine = new Map<string, ManagedHostState>()));
    mine.set(r.id, r.state);
  }

  delete(r: Pick<ManagedHostRecord, "id" | "owner">): void {
    const mine = this.#owners.get(r.owner);
    mine?.delete(r.id);
    if (mine?.size === 0) this.#owners.delete(r.owner);
  }

  /** Why `record` may not be created under `caps` (undefined: it may). */
  overCap(record: ManagedHostRecord, caps: OwnerCaps): Exclude<CreateAnswer, "ok" | "exists"> | undefined {
    const mine = [...(this.#owners.get(record.owner)?.values() ?? [])];
    if (mine.length >= caps.hosts) return "too_many_hosts";
    if (record.state === "draft" && mine.filter((s) => s === "draft").length >= caps.drafts)
      return "too_many_drafts";
    return undefined;
  }
}
