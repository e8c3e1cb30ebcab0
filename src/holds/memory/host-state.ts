/**
 * MemoryHoldStore's per-host state and the reads every operation shares: what is live,
 * what a hold looks like at `now`, a resource's occupancy, and the one way a hold expires
 * (so each expiry is reported exactly once).
 */
import type { AgentOccupancy, Occupancy } from "../allocation.js";
import type { Interval } from "../../calendar/index.js";
import type { BookingIndexEntry, BookingRecord, ExpiryEvent, HoldRecord } from "../port.js";
import type { WaitlistRecord } from "../waitlist-port.js";
import { BookingIndexes, SortedIds } from "./booking-indexes.js";

const DAY_MS = 86_400_000;
/** Bookings longer than this are kept out of the day index and always read (rare, bounded). */
const MAX_INDEXED_DAYS = 7;
/** A window wider than this reads every active booking rather than its days. */
const MAX_WINDOW_DAYS = 62;
const dayOf = (ms: number): number => Math.floor(ms / DAY_MS);

/** Which §7.2 pool a hold was counted in when it was placed. */
export type Pool =
  | { readonly kind: "proven" }
  | { readonly kind: "unproven" }
  | { readonly kind: "attester"; readonly id: string };

export interface StoredHold {
  readonly record: HoldRecord;
  readonly pool: Pool;
  /** The requirement type of each allocation, index for index (for the walk-in reserve). */
  readonly types: readonly string[];
  /** The last fence handed out; fences only grow (beginConfirm, claimStuckConfirming). */
  readonly lastFence: number;
  /**
   * §5.9 a waitlist offer whose lapse moves its time down the line (OfferCandidate.line): once
   * expired it keeps occupying its time (HostState.lineHeld) until the line step clears this.
   */
  readonly line?: true;
}

export interface StoredBooking {
  readonly record: BookingRecord;
  readonly types: readonly string[];
  /** The core's description of the payload (BookingIndexEntry), when it gave one. */
  readonly index?: BookingIndexEntry;
  /**
   * §5.10 Locks: the pool the booking's hold drew on. While the booking's index status is
   * "tentative" it counts against its agent's cap and this pool like a hold (tentativeLocks).
   */
  readonly locks?: Pool;
  /**
   * Written by a store that keeps the booking indexes. A snapshot taken before they existed
   * lacks it: backfillBookingIndex then describes the booking once.
   */
  readonly indexed?: true;
}

/** One host's records as a snapshot carries them (Maps and Sets of plain records). */
export interface HostStateData {
  readonly holds: ReadonlyMap<string, StoredHold>;
  readonly live: ReadonlySet<string>;
  readonly bookings: ReadonlyMap<string, StoredBooking>;
  readonly busy: ReadonlyMap<string, ReadonlyMap<string, readonly Interval[]>>;
  readonly events: readonly ExpiryEvent[];
  /** §5.9 entries (absent in snapshots written before the waitlist). */
  readonly waitlist?: ReadonlyMap<string, WaitlistRecord>;
}

export class HostState {
  readonly holds = new Map<string, StoredHold>();
  /** Ids of holds held (possibly lapsed, not yet expired) or confirming. */
  readonly live = new Set<string>();
  /**
   * §5.9 "a lapse moves down the line": ids of expired waitlist offers (StoredHold.line) whose
   * time still occupies its resources for everyone until offerFreed moves it to the next entry.
   */
  readonly lineHeld = new Set<string>();
  /**
   * §5.10 Locks: ids of active bookings whose index status is "tentative" (and that know their
   * pool): placeHold counts them against the agent cap and the pool, in its own step.
   */
  readonly tentativeLocks = new Set<string>();
  readonly bookings = new Map<string, StoredBooking>();
  readonly activeBookings = new Set<string>();
  /** resourceId → source → busy intervals (§10 imported busy time). */
  readonly busy = new Map<string, Map<string, readonly Interval[]>>();
  readonly events: ExpiryEvent[] = [];
  /** §5.9 waitlist entries by id; the line is their seq order. */
  readonly waitlist = new Map<string, WaitlistRecord>();
  /** Order, status, deadline, key and time indexes of the bookings (booking-indexes.ts). */
  readonly index = new BookingIndexes();
  /** Bookings restored from a snapshot older than the indexes (backfillBookingIndex). */
  readonly unindexed = new Set<string>();
  /**
   * Ids of every hold ever placed, by mandate link ("m <rootIss> <jti>"): owners never
   * change, so the counts below read only the records that could match instead of every
   * record of the host.
   */
  readonly #byOwner = new Map<string, Set<string>>();
  /**
   * Active bookings per principal by end, so isPrincipalProven reads only those already over
   * (reading every active booking of a principal made each hold cost O(their bookings)).
   */
  readonly #activeByPrincipalEnd = new Map<string, SortedIds>();
  /** Active bookings by mandate link: kept exact on every booking write. */
  readonly #activeByMandate = new Map<string, Set<string>>();
  /**
   * Active bookings by every UTC day (epoch day number) their interval touches, so a hold
   * reads the bookings near its time rather than every booking the host still has; the
   * days each one is filed under, to unfile it when it moves or ends; and the few longer
   * than MAX_INDEXED_DAYS, read every time.
   */
  readonly #activeByDay = new Map<number, Set<string>>();
  readonly #filedDays = new Map<string, readonly number[]>();
  readonly #activeLong = new Set<string>();

  constructor(readonly hostId: string) {}

  /** The records themselves (the indexes are rebuilt from them): see MemoryHoldStore.exportState. */
  exportState(): HostStateData {
    return {
      holds: this.holds,
      live: this.live,
      bookings: this.bookings,
      busy: this.busy,
      events: this.events,
      waitlist: this.waitlist,
    };
  }

  static restore(hostId: string, data: HostStateData): HostState {
    const h = new HostState(hostId);
    for (const [id, stored] of data.holds) {
      h.holds.set(id, stored);
      h.indexHold(stored.record);
      if (stored.line === true && stored.record.state === "expired") h.lineHeld.add(id);
    }
    for (const id of data.live) h.live.add(id);
    for (const stored of data.bookings.values()) {
      h.putBooking(stored);
      if (stored.indexed !== true) h.unindexed.add(stored.record.bookingId);
    }
    for (const [resource, sources] of data.busy) h.busy.set(resource, new Map(sources));
    h.events.push(...data.events);
    for (const [id, entry] of data.waitlist ?? []) h.waitlist.set(id, entry);
    return h;
  }

  /** A held hold whose expiry has come reads as expired (§5.2 TTL), without writing. */
  view(stored: StoredHold, now: number): HoldRecord {
    const r = stored.record;
    return r.state === "held" && r.expiresAt <= now ? { ...r, state: "expired", endedAt: r.expiresAt } : r;
  }

  /** The one place a hold expires: frees its time and queues its event once. */
  expire(stored: StoredHold): HoldRecord {
    const record: HoldRecord = { ...stored.record, state: "expired", endedAt: stored.record.expiresAt };
    this.holds.set(record.holdId, { ...stored, record });
    this.live.delete(record.holdId);
    if (stored.line === true) this.lineHeld.add(record.holdId);
    this.events.push({
      hostId: this.hostId,
      holdId: record.holdId,
      owner: record.owner,
      expiredAt: record.expiresAt,
    });
    return record;
  }

  /** Lapsed held holds, earliest expiry first. */
  lapsed(now: number): StoredHold[] {
    const out: StoredHold[] = [];
    for (const id of this.live) {
      const h = this.holds.get(id);
      if (h !== undefined && h.record.state === "held" && h.record.expiresAt <= now) out.push(h);
    }
    return out.sort((a, b) => a.record.expiresAt - b.record.expiresAt);
  }

  /** Expires every lapsed hold (lazy expiry before an allocation). */
  expireLapsed(now: number, limit = Number.POSITIVE_INFINITY): number {
    const due = this.lapsed(now).slice(0, limit);
    for (const h of due) this.expire(h);
    return due.length;
  }

  /** Live holds that still occupy time at `now` (held and not lapsed, or confirming). */
  *activeHolds(now: number): Generator<StoredHold> {
    for (const id of this.live) {
      const h = this.holds.get(id);
      if (h === undefined) continue;
      if (h.record.state === "confirming" || (h.record.state === "held" && h.record.expiresAt > now)) yield h;
    }
  }

  /**
   * Holds whose time is occupied at `now`: the live ones, and lapsed waitlist offers whose time
   * waits for the line (§5.9, lineHeld; one lapsed but not expired yet too, so a read before the
   * lazy expiry sees the same). They count for allocation and availability, not for any cap.
   */
  *occupyingHolds(now: number): Generator<StoredHold> {
    for (const id of this.live) {
      const h = this.holds.get(id);
      if (h === undefined) continue;
      if (
        h.record.state === "confirming" ||
        (h.record.state === "held" && (h.record.expiresAt > now || h.line === true))
      )
        yield h;
    }
    for (const id of this.lineHeld) {
      const h = this.holds.get(id);
      if (h !== undefined) yield h;
    }
  }

  /** §5.9: the line step took the time of an expired waitlist offer; it no longer occupies it. */
  releaseToLine(holdId: string): void {
    this.lineHeld.delete(holdId);
    const stored = this.holds.get(holdId);
    if (stored?.line === true) {
      const { line: _line, ...rest } = stored;
      this.holds.set(holdId, rest);
    }
  }

  #index(key: string, id: string): void {
    const ids = this.#byOwner.get(key);
    if (ids === undefined) this.#byOwner.set(key, new Set([id]));
    else ids.add(id);
  }

  /** Call once when a hold is placed. */
  indexHold(record: HoldRecord): void {
    for (const m of record.owner.mandates) this.#index(`m ${m.rootIss} ${m.jti}`, `h ${record.holdId}`);
  }

  /**
   * The one way a booking is written (created, moved, released, annotated): keeps the active
   * set, the mandate counts and the day index exact.
   */
  putBooking(stored: StoredBooking): void {
    const record = stored.record;
    const previous = this.bookings.get(record.bookingId);
    this.bookings.set(record.bookingId, stored);
    this.index.placed(previous?.record, record);
    if (stored.index !== undefined && stored.index !== previous?.index)
      this.index.describe(record.bookingId, stored.index);
    if (stored.indexed === true) this.unindexed.delete(record.bookingId);
    if (record.state === "active") this.activeBookings.add(record.bookingId);
    else this.activeBookings.delete(record.bookingId);
    if (record.state === "active" && stored.locks !== undefined && stored.index?.status === "tentative")
      this.tentativeLocks.add(record.bookingId);
    else this.tentativeLocks.delete(record.bookingId);
    this.#countForMandates(record);
    this.#fileByDay(record);
    this.#fileByPrincipal(previous?.record, record);
  }

  #fileByPrincipal(previous: BookingRecord | undefined, record: BookingRecord): void {
    const principal = record.owner.principal;
    if (principal === null) return;
    let ids = this.#activeByPrincipalEnd.get(principal);
    if (previous?.state === "active") ids?.delete(record.bookingId, previous.interval.end);
    if (record.state !== "active") return;
    if (ids === undefined) this.#activeByPrincipalEnd.set(principal, (ids = new SortedIds()));
    ids.add(record.bookingId, record.interval.end);
  }

  /** Active bookings of a principal whose end is at or before `now`, earliest end first. */
  *activeBookingsOverBy(principal: string, now: number): Generator<StoredBooking> {
    for (const e of this.#activeByPrincipalEnd.get(principal)?.ascending(Number.NEGATIVE_INFINITY, now + 1) ??
      []) {
      const b = this.bookings.get(e.id);
      if (b !== undefined) yield b;
    }
  }

  #fileByDay(record: BookingRecord): void {
    const id = record.bookingId;
    for (const day of this.#filedDays.get(id) ?? []) {
      const ids = this.#activeByDay.get(day);
      ids?.delete(id);
      if (ids?.size === 0) this.#activeByDay.delete(day);
    }
    this.#filedDays.delete(id);
    this.#activeLong.delete(id);
    if (record.state !== "active") return;
    const first = dayOf(record.interval.start);
    const last = dayOf(Math.max(record.interval.start, record.interval.end - 1));
    if (last - first >= MAX_INDEXED_DAYS) {
      this.#activeLong.add(id);
      return;
    }
    const days: number[] = [];
    for (let day = first; day <= last; day++) {
      days.push(day);
      const ids = this.#activeByDay.get(day);
      if (ids === undefined) this.#activeByDay.set(day, new Set([id]));
      else ids.add(id);
    }
    this.#filedDays.set(id, days);
  }

  #countForMandates(record: BookingRecord): void {
    for (const m of record.owner.mandates) {
      const key = `${m.rootIss} ${m.jti}`;
      let ids = this.#activeByMandate.get(key);
      if (record.state === "active") {
        if (ids === undefined) this.#activeByMandate.set(key, (ids = new Set()));
        ids.add(record.bookingId);
      } else ids?.delete(record.bookingId);
    }
  }

  /** Active bookings; with a window, at least those overlapping it (read from the day index). */
  *bookingsActive(window?: Interval): Generator<StoredBooking> {
    let ids: Iterable<string> = this.activeBookings;
    if (window !== undefined && window.end > window.start) {
      const first = dayOf(window.start);
      const last = dayOf(window.end - 1);
      if (last - first <= MAX_WINDOW_DAYS) {
        const near = new Set(this.#activeLong);
        for (let day = first; day <= last; day++)
          for (const id of this.#activeByDay.get(day) ?? []) near.add(id);
        ids = near;
      }
    }
    for (const id of ids) {
      const b = this.bookings.get(id);
      if (b !== undefined && b.record.state === "active") yield b;
    }
  }

  /** Agents' allocations (holds and bookings) per resource, and as the reserve sees them. */
  agentOccupancy(
    now: number,
    excludeBookingId?: string,
    /** Only entries overlapping it (all when absent). */
    window?: Interval,
  ): { byResource: Map<string, Occupancy[]>; agent: AgentOccupancy[] } {
    const byResource = new Map<string, Occupancy[]>();
    const agent: AgentOccupancy[] = [];
    const add = (interval: Interval, allocations: HoldRecord["allocations"], types: readonly string[]) => {
      if (window !== undefined && !(interval.start < window.end && window.start < interval.end)) return;
      allocations.forEach((a, i) => {
        const list = byResource.get(a.resourceId) ?? [];
        list.push({ start: interval.start, end: interval.end, units: a.units });
        byResource.set(a.resourceId, list);
        agent.push({
          resourceId: a.resourceId,
          type: types[i] ?? "",
          start: interval.start,
          end: interval.end,
        });
      });
    };
    for (const h of this.occupyingHolds(now)) add(h.record.interval, h.record.allocations, h.types);
    for (const b of this.bookingsActive(window)) {
      if (b.record.bookingId !== excludeBookingId) add(b.record.interval, b.record.allocations, b.types);
    }
    return { byResource, agent };
  }

  /** Imported busy blocks of a resource, each occupying its whole capacity. */
  busyOf(resourceId: string, capacity: number): Occupancy[] {
    const out: Occupancy[] = [];
    for (const blocks of this.busy.get(resourceId)?.values() ?? []) {
      for (const b of blocks) out.push({ start: b.start, end: b.end, units: capacity });
    }
    return out;
  }

  /** Live holds and active bookings counted against a mandate link (§3.3, §7.1). */
  countMandate(rootIss: string, jti: string, now: number | undefined, excludeHoldId?: string): number {
    let n = this.#activeByMandate.get(`${rootIss} ${jti}`)?.size ?? 0;
    const holds = this.#byOwner.get(`m ${rootIss} ${jti}`);
    for (const entry of holds ?? []) {
      const id = entry.slice(2);
      const h = this.holds.get(id);
      // Booked, expired and released holds never hold time again: forget them here.
      if (h === undefined || !(h.record.state === "held" || h.record.state === "confirming")) {
        holds?.delete(entry);
        continue;
      }
      if (!this.live.has(id) || id === excludeHoldId) continue;
      if (now !== undefined && h.record.state === "held" && h.record.expiresAt <= now) continue;
      n++;
    }
    // §5.9: a waiting entry counts against its mandate's max_bookings (its offer's hold does
    // once it is offered).
    for (const e of this.waitlist.values()) {
      if (e.status !== "waiting" || (now !== undefined && e.until <= now)) continue;
      if (e.mandates.some((m) => m.rootIss === rootIss && m.jti === jti)) n++;
    }
    return n;
  }
}
