/**
 * MemoryHoldStore's booking indexes, the twin of the Redis ones (redis/lua/booking-index.lua):
 * every booking in creation order, the same order per status the core named, the due
 * deadlines, the unique lookup keys, and active bookings per resource by start (with the
 * longest booking each resource has had, so an overlap query reads only starts that could
 * reach into it). HostState.putBooking and describe keep them in the step that writes the
 * booking.
 */
import type { BookingIndexEntry, BookingRecord, Interval } from "../port.js";

interface Scored {
  readonly score: number;
  readonly id: string;
}

const before = (a: Scored, score: number, id: string) => a.score < score || (a.score === score && a.id < id);

/** Ids sorted by (score, id): binary-searched inserts and removals, ranges in either direction. */
export class SortedIds {
  private readonly entries: Scored[] = [];

  get size(): number {
    return this.entries.length;
  }

  /** The first position not before (score, id). */
  private position(score: number, id: string): number {
    let lo = 0;
    let hi = this.entries.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (before(this.entries[mid] as Scored, score, id)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  add(id: string, score: number): void {
    const at = this.position(score, id);
    const there = this.entries[at];
    if (there?.score === score && there.id === id) return;
    this.entries.splice(at, 0, { score, id });
  }

  delete(id: string, score: number): void {
    const at = this.position(score, id);
    const there = this.entries[at];
    if (there?.score === score && there.id === id) this.entries.splice(at, 1);
  }

  /** Ascending, lo <= score < hi. */
  *ascending(lo: number, hi: number): Generator<Scored> {
    for (let i = this.position(lo, ""); i < this.entries.length; i++) {
      const e = this.entries[i] as Scored;
      if (e.score >= hi) return;
      yield e;
    }
  }

  /** Descending, score < below. */
  *descending(below: number): Generator<Scored> {
    for (let i = this.position(below, "") - 1; i >= 0; i--) yield this.entries[i] as Scored;
  }
}

export class BookingIndexes {
  #next = 1;
  /** Creation order of every booking (its list cursor). */
  readonly #order = new Map<string, number>();
  readonly #all = new SortedIds();
  readonly #byStatus = new Map<string, SortedIds>();
  readonly #due = new SortedIds();
  readonly #keys = new Map<string, string>();
  /** The entry each booking was last described with. */
  readonly #facts = new Map<string, BookingIndexEntry>();
  readonly #byResource = new Map<string, SortedIds>();
  readonly #longest = new Map<string, number>();

  /** A booking written (created, moved, released): its order on first sight, its time index. */
  placed(previous: BookingRecord | undefined, record: BookingRecord): void {
    const id = record.bookingId;
    if (!this.#order.has(id)) {
      const order = this.#next++;
      this.#order.set(id, order);
      this.#all.add(id, order);
    }
    if (previous?.state === "active")
      for (const a of previous.allocations)
        this.#byResource.get(a.resourceId)?.delete(id, previous.interval.start);
    if (record.state !== "active") return;
    const length = record.interval.end - record.interval.start;
    for (const a of record.allocations) {
      let ids = this.#byResource.get(a.resourceId);
      if (ids === undefined) this.#byResource.set(a.resourceId, (ids = new SortedIds()));
      ids.add(id, record.interval.start);
      if ((this.#longest.get(a.resourceId) ?? 0) < length) this.#longest.set(a.resourceId, length);
    }
  }

  /** The core's facts of a booking's payload replace the previous ones. */
  describe(id: string, entry: BookingIndexEntry): void {
    const order = this.#order.get(id);
    if (order === undefined) return;
    const old = this.#facts.get(id);
    if (old !== undefined) {
      this.#byStatus.get(old.status)?.delete(id, order);
      if (old.deadline !== undefined) this.#due.delete(id, old.deadline);
      for (const k of old.keys ?? []) if (this.#keys.get(k) === id) this.#keys.delete(k);
    }
    const fact: BookingIndexEntry = {
      status: entry.status,
      ...(entry.deadline !== undefined && { deadline: entry.deadline }),
      ...(entry.keys !== undefined && { keys: [...entry.keys] }),
    };
    this.#facts.set(id, fact);
    let ids = this.#byStatus.get(fact.status);
    if (ids === undefined) this.#byStatus.set(fact.status, (ids = new SortedIds()));
    ids.add(id, order);
    if (fact.deadline !== undefined) this.#due.add(id, fact.deadline);
    for (const k of fact.keys ?? []) this.#keys.set(k, id);
  }

  facts(id: string): BookingIndexEntry | undefined {
    return this.#facts.get(id);
  }

  /** Booking ids newest first from below `cursor` (an order), with each one's order. */
  *newestFirst(status: string | undefined, cursor: number): Generator<Scored> {
    const ids = status === undefined ? this.#all : this.#byStatus.get(status);
    if (ids !== undefined) yield* ids.descending(cursor);
  }

  /** Ids of active bookings on `resourceId` that may overlap `range`. */
  *overlapCandidates(resourceId: string, range: Interval): Generator<string> {
    const ids = this.#byResource.get(resourceId);
    if (ids === undefined) return;
    const longest = this.#longest.get(resourceId) ?? 0;
    for (const e of ids.ascending(range.start - longest + 1, range.end)) yield e.id;
  }

  due(now: number, limit: number, offset = 0): string[] {
    const out: string[] = [];
    let skipped = 0;
    for (const e of this.#due.ascending(Number.NEGATIVE_INFINITY, now + 1)) {
      if (out.length >= limit) break;
      if (skipped < offset) {
        skipped++;
        continue;
      }
      out.push(e.id);
    }
    return out;
  }

  byKey(key: string): string | undefined {
    return this.#keys.get(key);
  }
}
