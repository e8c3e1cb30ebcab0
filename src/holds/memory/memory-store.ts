/**
 * MemoryHoldStore: the embedded GatewayStore (src/holds/port.ts) when no Redis is
 * configured, and the twin RedisHoldStore is checked against (test/holds/contract).
 *
 * Atomicity is single-process: every operation runs synchronously from start to end, with
 * no await inside, so nothing interleaves with it; the methods return promises only to
 * satisfy the port. Time is the caller's `now` everywhere the port passes one; the nonce
 * memory, whose port takes no `now`, reads the injected `clock`.
 */
import type {
  OccupancyEntry,
  BookingIndexEntry,
  BookingListQuery,
  BookingPage,
  BookingRecord,
  NewBooking,
  ExpiryEvent,
  GatewayStore,
  HoldOutcome,
  HoldRecord,
  PlaceHoldRequest,
  IdempotencyBegin,
  IdempotencyScope,
  Interval,
  ReleaseResult,
  ReputationCounts,
  ReputationOutcome,
  ReputationSubject,
  StoredResponse,
  Transition,
} from "../port.js";
import * as bookings from "./bookings.js";
import { HostState, type HostStateData } from "./host-state.js";
import * as lifecycle from "./lifecycle.js";
import { placeHold } from "./place-hold.js";
import * as waitlist from "./waitlist.js";
import type {
  FreedOffer,
  FreedOutcome,
  WaitlistJoin,
  WaitlistJoinRefusal,
  WaitlistRecord,
  WaitlistStatus,
} from "../waitlist-port.js";
import type { Result } from "../../protocol/result.js";
import { IdempotencyMemory, ReputationMemory, SeenNonces } from "./side-stores.js";
import { type Clock, systemClock } from "../../protocol/clock.js";

export interface MemoryHoldStoreOptions {
  /** Epoch ms; read only by the nonce memory (default: the system clock). */
  readonly clock?: Clock;
  /** Ended holds older than this are dropped by sweepExpired (default 7 days). */
  readonly endedHoldRetentionMs?: number;
}

const NOT_FOUND = { ok: false, error: { reason: "not_found" } } as const;

/** What MemoryHoldStore.exportState hands out and importState takes back. */
export interface MemoryHoldStoreState {
  readonly hosts: ReadonlyMap<string, HostStateData>;
  readonly hostsWithHolds: ReadonlySet<string>;
  readonly nonces: ReadonlyMap<string, number>;
  readonly idempotency: ReadonlyMap<string, unknown>;
  readonly reputations: ReadonlyMap<string, ReputationCounts>;
}

function refill<K, V>(target: Map<K, V>, from: ReadonlyMap<K, unknown>): void {
  target.clear();
  for (const [k, v] of from) target.set(k, v as V);
}

/** Runs a synchronous step and hands back its result (or its exception) as a promise. */
function settle<T>(step: () => T): Promise<T> {
  try {
    return Promise.resolve(step());
  } catch (e) {
    return Promise.reject(e instanceof Error ? e : new Error(String(e)));
  }
}

export class MemoryHoldStore implements GatewayStore {
  private readonly hosts = new Map<string, HostState>();
  private readonly hostsWithHolds = new Set<string>();
  private readonly nonces: SeenNonces;
  private readonly idempotency = new IdempotencyMemory();
  private readonly reputations = new ReputationMemory();
  private readonly endedHoldRetentionMs: number;

  constructor(options: MemoryHoldStoreOptions = {}) {
    this.nonces = new SeenNonces(options.clock ?? systemClock);
    this.endedHoldRetentionMs = options.endedHoldRetentionMs ?? 7 * 86_400_000;
  }

  /**
   * Everything the store holds, as Maps and Sets of plain records, for a process that keeps
   * it in a file between runs (src/gateway/runtime/memory-state-file.ts). Read it between
   * operations: each operation runs to its end synchronously, so no snapshot sees half of one.
   */
  exportState(): MemoryHoldStoreState {
    return {
      hosts: new Map([...this.hosts].map(([id, h]) => [id, h.exportState()])),
      hostsWithHolds: this.hostsWithHolds,
      nonces: this.nonces.seen,
      idempotency: this.idempotency.entries,
      reputations: this.reputations.counts,
    };
  }

  /** Replaces everything with a snapshot exportState made (the indexes are rebuilt). */
  importState(state: MemoryHoldStoreState): void {
    this.hosts.clear();
    for (const [id, data] of state.hosts) this.hosts.set(id, HostState.restore(id, data));
    this.hostsWithHolds.clear();
    for (const id of state.hostsWithHolds) this.hostsWithHolds.add(id);
    refill(this.nonces.seen, state.nonces);
    refill(this.idempotency.entries, state.idempotency);
    refill(this.reputations.counts, state.reputations);
  }

  private host(hostId: string): HostState {
    let h = this.hosts.get(hostId);
    if (h === undefined) {
      h = new HostState(hostId);
      this.hosts.set(hostId, h);
    }
    return h;
  }

  /** Runs `step` on an existing host, or answers not_found without creating one. */
  private onHost<T>(hostId: string, step: (host: HostState) => Transition<T>): Promise<Transition<T>> {
    return settle(() => {
      const h = this.hosts.get(hostId);
      return h === undefined ? NOT_FOUND : step(h);
    });
  }

  placeHold(request: PlaceHoldRequest): Promise<HoldOutcome> {
    return settle(() => {
      const outcome = placeHold(this.host(request.hostId), request);
      if (outcome.ok) this.hostsWithHolds.add(request.hostId);
      return outcome;
    });
  }

  // ---- the waitlist (§5.9): waitlist.ts

  joinWaitlist(join: WaitlistJoin): Promise<Result<WaitlistRecord, WaitlistJoinRefusal>> {
    return settle(() => {
      const joined = waitlist.joinWaitlist(this.host(join.hostId), join);
      // The sweeper walks these hosts: a waiting entry expires there (§5.9).
      if (joined.ok) this.hostsWithHolds.add(join.hostId);
      return joined;
    });
  }

  getWaitlistEntry(hostId: string, entryId: string): Promise<WaitlistRecord | undefined> {
    return settle(() => this.hosts.get(hostId)?.waitlist.get(entryId));
  }

  waitingEntries(hostId: string, limit: number): Promise<readonly WaitlistRecord[]> {
    return settle(() => {
      const h = this.hosts.get(hostId);
      return h === undefined ? [] : waitlist.waitingEntries(h, limit);
    });
  }

  offeredEntries(hostId: string, limit: number): Promise<readonly WaitlistRecord[]> {
    return settle(() => {
      const h = this.hosts.get(hostId);
      return h === undefined ? [] : waitlist.offeredEntries(h, limit);
    });
  }

  setWaitlistStatus(
    hostId: string,
    entryId: string,
    from: readonly WaitlistStatus[],
    to: WaitlistStatus,
  ): Promise<WaitlistRecord | undefined> {
    return settle(() => {
      const h = this.hosts.get(hostId);
      return h === undefined ? undefined : waitlist.setWaitlistStatus(h, entryId, from, to);
    });
  }

  offerFreed(offer: FreedOffer): Promise<FreedOutcome> {
    return settle(() => {
      const outcome = waitlist.offerFreed(this.host(offer.hostId), offer);
      if (outcome.offered !== undefined) this.hostsWithHolds.add(offer.hostId);
      return outcome;
    });
  }

  getHold(hostId: string, holdId: string, now: number): Promise<HoldRecord | undefined> {
    return settle(() => {
      const h = this.hosts.get(hostId);
      const stored = h?.holds.get(holdId);
      return h === undefined || stored === undefined ? undefined : h.view(stored, now);
    });
  }

  releaseHold(hostId: string, holdId: string, now: number): Promise<Transition<ReleaseResult>> {
    return this.onHost(hostId, (h) => lifecycle.releaseHold(h, holdId, now));
  }

  beginConfirm(hostId: string, holdId: string, now: number, leaseMs: number) {
    return this.onHost(hostId, (h) => lifecycle.beginConfirm(h, holdId, now, leaseMs));
  }

  completeConfirm(
    hostId: string,
    holdId: string,
    fence: number,
    booking: NewBooking,
    now: number,
  ): Promise<Transition<BookingRecord>> {
    return this.onHost(hostId, (h) => lifecycle.completeConfirm(h, holdId, fence, booking, now));
  }

  abortConfirm(
    hostId: string,
    holdId: string,
    fence: number,
    disposition: "release" | "held",
    now: number,
  ): Promise<Transition<HoldRecord>> {
    return this.onHost(hostId, (h) => lifecycle.abortConfirm(h, holdId, fence, disposition, now));
  }

  claimStuckConfirming(hostId: string, now: number, leaseMs: number, limit: number) {
    return settle(() => {
      const h = this.hosts.get(hostId);
      return h === undefined ? [] : lifecycle.claimStuckConfirming(h, now, leaseMs, limit);
    });
  }

  getBooking(hostId: string, bookingId: string): Promise<BookingRecord | undefined> {
    return settle(() => this.hosts.get(hostId)?.bookings.get(bookingId)?.record);
  }

  listBookingIds(hostId: string, limit: number): Promise<readonly string[]> {
    return settle(() => {
      const ids: string[] = [];
      const h = this.hosts.get(hostId);
      if (h === undefined || limit <= 0) return ids;
      for (const e of h.index.newestFirst(undefined, Number.POSITIVE_INFINITY)) {
        ids.push(e.id);
        if (ids.length >= limit) break;
      }
      return ids;
    });
  }

  listBookings(hostId: string, query: BookingListQuery): Promise<BookingPage> {
    return settle(() => bookings.listBookings(this.hosts.get(hostId), query));
  }

  bookingsOverlapping(
    hostId: string,
    resourceIds: readonly string[],
    range: Interval,
  ): Promise<readonly BookingRecord[]> {
    return settle(() => bookings.bookingsOverlapping(this.hosts.get(hostId), resourceIds, range));
  }

  bookingsDue(hostId: string, now: number, limit: number, offset = 0): Promise<readonly string[]> {
    return settle(
      () => this.hosts.get(hostId)?.index.due(now, Math.max(0, limit), Math.max(0, offset)) ?? [],
    );
  }

  bookingIdByKey(hostId: string, key: string): Promise<string | undefined> {
    return settle(() => this.hosts.get(hostId)?.index.byKey(key));
  }

  backfillBookingIndex(
    hostId: string,
    describe: (payload: string) => BookingIndexEntry | undefined,
  ): Promise<number> {
    return settle(() => bookings.backfillBookingIndex(this.hosts.get(hostId), describe));
  }

  releaseBooking(hostId: string, bookingId: string, _now: number): Promise<Transition<BookingRecord>> {
    return this.onHost(hostId, (h) => bookings.releaseBooking(h, bookingId));
  }

  moveBookingToHold(hostId: string, bookingId: string, holdId: string, now: number) {
    return this.onHost(hostId, (h) => bookings.moveBookingToHold(h, bookingId, holdId, now));
  }

  updateBookingPayload(
    hostId: string,
    bookingId: string,
    payload: string,
    ifPayload?: string,
    index?: BookingIndexEntry,
  ) {
    return this.onHost(hostId, (h) => bookings.updateBookingPayload(h, bookingId, payload, ifPayload, index));
  }

  listOccupancy(
    hostId: string,
    resourceIds: readonly string[],
    range: Interval,
    now: number,
  ): Promise<ReadonlyMap<string, readonly OccupancyEntry[]>> {
    return settle(() => {
      const out = new Map<string, OccupancyEntry[]>();
      const h = this.hosts.get(hostId);
      const agent = h?.agentOccupancy(now, undefined, range).byResource;
      const overlaps = (e: { start: number; end: number }) => e.start < range.end && e.end > range.start;
      for (const id of resourceIds) {
        const entries: OccupancyEntry[] = [];
        // Fields written out: a spread here cost ~0.6 µs an entry (V8, Node 20), and an
        // availability query reads every busy block of the month, twice.
        for (const o of agent?.get(id) ?? [])
          if (overlaps(o)) entries.push({ start: o.start, end: o.end, units: o.units, agent: true });
        // A busy block fills the whole capacity, whatever it is.
        for (const o of h?.busyOf(id, Number.POSITIVE_INFINITY) ?? [])
          if (overlaps(o)) entries.push({ start: o.start, end: o.end, units: o.units, agent: false });
        out.set(id, entries);
      }
      return out;
    });
  }

  markAttendance(hostId: string, bookingId: string, attendance: "completed" | "no_show", end?: number) {
    return this.onHost(hostId, (h) => bookings.markAttendance(h, bookingId, attendance, end));
  }

  isPrincipalProven(hostId: string, principal: string, now: number): Promise<boolean> {
    return settle(() => {
      const h = this.hosts.get(hostId);
      return h !== undefined && bookings.isPrincipalProven(h, principal, now);
    });
  }

  replaceBusy(hostId: string, resourceId: string, source: string, busy: readonly Interval[]): Promise<void> {
    return settle(() => {
      const h = this.host(hostId);
      const sources = h.busy.get(resourceId) ?? new Map<string, readonly Interval[]>();
      if (busy.length === 0) sources.delete(source);
      else
        sources.set(
          source,
          busy.map((b) => ({ start: b.start, end: b.end })),
        );
      if (sources.size === 0) h.busy.delete(resourceId);
      else h.busy.set(resourceId, sources);
    });
  }

  countForMandate(hostId: string, rootIss: string, jti: string, excludeHoldId?: string): Promise<number> {
    // The port passes no `now`: a lapsed hold not yet expired still counts here.
    return settle(() => this.hosts.get(hostId)?.countMandate(rootIss, jti, undefined, excludeHoldId) ?? 0);
  }

  sweepExpired(hostId: string, now: number, limit: number): Promise<number> {
    return settle(() => {
      const h = this.hosts.get(hostId);
      if (h === undefined) return 0;
      const expired = h.expireLapsed(now, Math.max(0, limit));
      this.pruneEnded(h, now);
      return expired;
    });
  }

  /** Forgets holds that ended long ago, so the embedded store does not grow forever. */
  private pruneEnded(h: HostState, now: number): void {
    const before = now - this.endedHoldRetentionMs;
    for (const [id, stored] of h.holds) {
      const ended = stored.record.endedAt;
      if (!h.live.has(id) && !h.lineHeld.has(id) && ended !== undefined && ended < before) h.holds.delete(id);
    }
  }

  listHosts(): Promise<readonly string[]> {
    return settle(() => [...this.hostsWithHolds]);
  }

  takeExpiryEvents(hostId: string, limit: number): Promise<readonly ExpiryEvent[]> {
    return settle(() => this.hosts.get(hostId)?.events.splice(0, Math.max(0, limit)) ?? []);
  }

  recordOutcome(subject: ReputationSubject, outcome: ReputationOutcome, now: number): Promise<void> {
    return settle(() => this.reputations.record(subject, outcome, now));
  }

  reputation(subject: ReputationSubject, now: number): Promise<ReputationCounts> {
    return settle(() => this.reputations.read(subject, now));
  }

  rememberIfNew(keyid: string, nonce: string, expiresAtSec: number): Promise<boolean> {
    return settle(() => this.nonces.rememberIfNew(keyid, nonce, expiresAtSec));
  }

  beginIdempotent(
    scope: IdempotencyScope,
    requestHash: string,
    now: number,
    lockMs: number,
  ): Promise<IdempotencyBegin> {
    return settle(() => this.idempotency.begin(scope, requestHash, now, lockMs));
  }

  completeIdempotent(
    scope: IdempotencyScope,
    fence: string,
    record: { requestHash: string; principal: string | null; response: StoredResponse },
    now: number,
    retainMs: number,
  ): Promise<boolean> {
    return settle(() => this.idempotency.complete(scope, fence, record, now, retainMs));
  }

  abandonIdempotent(scope: IdempotencyScope, fence: string): Promise<void> {
    return settle(() => this.idempotency.abandon(scope, fence));
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
