/**
 * The hold store port (SchCP §4.1, §7, §10 "Platform connector": platforms have no hold
 * primitive, so the gateway emulates holds here).
 *
 * Two implementations pass one contract suite: RedisHoldStore (production: one Lua script
 * per allocation, so two concurrent holds can never take the same resource for
 * overlapping time across any number of gateway processes) and MemoryHoldStore (the
 * embedded default). Every key of a host lives under `{hostId}` so a host's keys share
 * one Redis Cluster slot.
 *
 * Conventions:
 * - Times are epoch milliseconds; intervals are half-open [start, end).
 * - `now` is always passed in (the gateway's clock), so tests can inject time and every
 *   process judges expiry by the same rule.
 * - Domain outcomes (slot taken, cap reached, wrong state) are returned as results.
 *   Infrastructure failures (Redis unreachable, a script error) reject with
 *   HoldStoreUnavailableError and leave nothing half-written.
 */

import type { Interval } from "../calendar/interval.js";
import type { NonceMemory } from "../protocol/http-signatures/nonce-memory.js";
import type { Result } from "../protocol/result.js";
import type { WaitlistStore } from "./waitlist-port.js";

/** Kept here for the store's callers; the type is src/calendar's. */
export type { Interval };

/** A resource the caller found in working hours for the whole interval (§4.1). */
export interface ResourceCandidate {
  readonly id: string;
  /** Units the resource holds at once (≥ 1): a bay 1, a spin studio 20. */
  readonly capacity: number;
}

/** One requirement of a service: one distinct free resource of `type` (§4.1). */
export interface Requirement {
  readonly type: string;
  /** In preference order; already filtered to those working for the whole interval. */
  readonly candidates: readonly ResourceCandidate[];
  /** Units taken (party_size for shared capacity, 1 otherwise). */
  readonly units: number;
  /**
   * §4.1 "combine": several free resources whose capacities add up to `units` may be
   * joined, largest capacity first; each joined resource is taken whole.
   */
  readonly combine?: boolean;
}

/** §7.2 walk_in_reserve: keep `keep` of `typeCount` resources of a type from agents. */
export interface WalkInReserve {
  readonly resourceType: string;
  readonly keep: number;
  readonly typeCount: number;
}

/** A mandate link a hold counts against: max_bookings keyed by (root iss, jti) (§3.3). */
export interface MandateCount {
  readonly rootIss: string;
  readonly jti: string;
  readonly maxBookings: number;
}

export interface HoldOwner {
  /** RFC 7638 thumbprint of the agent key that placed the hold. */
  readonly agentKey: string;
  /** Root principal (mandate iss), or null for an anonymous hold (§7.1). */
  readonly principal: string | null;
  /** An honoured attester (§7.5): the hold draws on its pool instead of the unproven one. */
  readonly attester?: string;
  readonly mandates: readonly MandateCount[];
  /**
   * The host's own offer to the guest (a change proposal or counter, §5.8, §5.11), held in the
   * guest's name so they may accept it: they never asked for it, so its lapse is no hold of
   * theirs abandoned (§7.3 counts "holds that expired unconfirmed" against who placed them).
   */
  readonly offeredByHost?: true;
}

export interface HoldCaps {
  readonly maxActivePerAgent?: number;
  /** §7.2: holds at once by principals with no kept appointment at this host. */
  readonly maxActiveUnproven?: number;
  readonly maxActivePerAttester?: number;
  /** Whether the owner's principal has kept an appointment here (isPrincipalProven). */
  readonly principalProven: boolean;
  readonly walkInReserves?: readonly WalkInReserve[];
}

/** A nearby start to test when the requested one is taken (§5.2 alternatives). */
export interface AlternativeCandidate {
  /** The start reported back (the slot's start; the interval may include a buffer). */
  readonly start: number;
  readonly interval: Interval;
  readonly requirements: readonly Requirement[];
}

/**
 * What the hold engine asks placeHold to allocate: the planned interval and requirements under
 * the caps (not the agent's SchCP HoldRequest, which the engine reads into this).
 */
export interface PlaceHoldRequest {
  readonly hostId: string;
  /** Caller-generated, unique per host; reusing a live id is refused. */
  readonly holdId: string;
  readonly serviceId: string;
  /** Occupied time: duration + buffer_after, or the set-aside of an open-ended service (§4.2). */
  readonly interval: Interval;
  readonly requirements: readonly Requirement[];
  /** Granted TTL: min(requested, policy max, reputation cap) (§5.2, §7.3); > 0. */
  readonly ttlMs: number;
  readonly now: number;
  readonly owner: HoldOwner;
  readonly caps: HoldCaps;
  /** A change offer's hold may overlap the booking it belongs to, and nothing else (§5.7). */
  readonly overlapBookingId?: string;
  /** Nearest first; the first five that could be held are returned when this one is taken. */
  readonly alternatives?: readonly AlternativeCandidate[];
  /** Opaque bytes kept with the hold for its life (the signed offer and the Hold body). */
  readonly payload: string;
}

export type HoldState = "held" | "confirming" | "booked" | "released" | "expired";

export interface Allocation {
  readonly resourceId: string;
  readonly units: number;
}

export interface HoldRecord {
  readonly hostId: string;
  readonly holdId: string;
  readonly serviceId: string;
  readonly interval: Interval;
  readonly state: HoldState;
  readonly createdAt: number;
  readonly expiresAt: number;
  readonly ttlMs: number;
  readonly owner: HoldOwner;
  readonly allocations: readonly Allocation[];
  readonly payload: string;
  /** Present while confirming: the fencing token and the lease's end. */
  readonly confirm?: { readonly fence: number; readonly leaseUntil: number };
  readonly bookingId?: string;
  /** When the hold ended (released, expired or booked). */
  readonly endedAt?: number;
}

export type HoldRefusalReason =
  | "slot_taken"
  | "walk_in_reserve"
  | "agent_limit"
  | "new_guest_pool_full"
  | "attester_pool_full"
  | "mandate_limit"
  | "hold_id_in_use"
  /** A waitlist offer (§5.9) whose allocation took none of the resources that came free. */
  | "not_freed";

/** Why the store refused a hold. */
export interface HoldRefusal {
  readonly reason: HoldRefusalReason;
  /** The rule that refused, e.g. { policy: "holds.max_active_per_agent", limit: 3 } (§9.2). */
  readonly basis?: Readonly<Record<string, string | number>>;
  /** Starts of up to five alternatives that could be held now (slot_taken, walk_in_reserve). */
  readonly alternatives?: readonly number[];
}

/** The hold placed, or why not. */
export type HoldOutcome = Result<HoldRecord, HoldRefusal>;

export type TransitionRefusal =
  | "not_found"
  | "expired"
  | "released"
  | "booked"
  | "confirming"
  | "stale_fence"
  | "invalid_state"
  /** updateBookingPayload's compare-and-set found another payload (a concurrent update won). */
  | "stale";

/** Why a transition was refused, with the hold as it stands when the store read one. */
interface RefusedTransition {
  readonly reason: TransitionRefusal;
  readonly hold?: HoldRecord;
}

/** The transition's result, or why it was refused. */
export type Transition<T> = Result<T, RefusedTransition>;

export interface ReleaseResult {
  readonly hold: HoldRecord;
  /** Released in the last fifth of its TTL: counts as an expiry for reputation (§7.2). */
  readonly countsAsExpiry: boolean;
  /** False when the hold was already released/expired (release is idempotent, §5.4). */
  readonly changed: boolean;
}

export interface BookingRecord {
  readonly hostId: string;
  readonly bookingId: string;
  readonly holdId: string;
  readonly serviceId: string;
  readonly interval: Interval;
  readonly owner: HoldOwner;
  readonly allocations: readonly Allocation[];
  readonly state: "active" | "released";
  /** Attendance as the host declared it (§6); a no_show earns no standing. */
  readonly attendance?: "completed" | "no_show";
  readonly payload: string;
}

/**
 * What the booking core says about a booking's payload, written in the same atomic step as the
 * payload itself (the store never reads payloads): the list's status filter, the due-deadline
 * set and the unique lookup keys stay exact across every crash.
 */
export interface BookingIndexEntry {
  /** The core's status of the booking ("pending_host", "confirmed", …): the list's filter. */
  readonly status: string;
  /** When the core must look at the booking again (an approval or offer deadline), epoch ms. */
  readonly deadline?: number;
  /** Keys unique at the host that find the booking, e.g. "upstream:<upstream id>". */
  readonly keys?: readonly string[];
}

/** A page of the host's bookings, newest first (listBookings). */
export interface BookingListQuery {
  /** 1 to MAX_BOOKING_PAGE. */
  readonly limit: number;
  /** A previous page's nextCursor: the page continues after it. */
  readonly cursor?: string;
  /** Only bookings whose index entry names this status. */
  readonly status?: string;
  /** Only bookings whose interval starts in [from, to) (either bound may be left open). */
  readonly from?: number;
  readonly to?: number;
}

export interface BookingPage {
  readonly bookings: readonly BookingRecord[];
  /**
   * Present while older bookings remain to be read. A filtered page may hold fewer than
   * `limit` bookings (each call reads a bounded stretch of the index) and still have one.
   */
  readonly nextCursor?: string;
}

/** The largest page listBookings answers. */
export const MAX_BOOKING_PAGE = 500;

/** A cursor listBookings hands out: decimal digits. Anything else is not one of its cursors. */
export const isBookingCursor = (cursor: string): boolean => /^[0-9]{1,20}$/.test(cursor);

export interface OccupancyEntry {
  readonly start: number;
  readonly end: number;
  readonly units: number;
  /** Held or booked through the gateway (counts for the walk-in reserve, §7.2). */
  readonly agent: boolean;
}

/** What occupies each resource (by id) over a range: listOccupancy's answer. */
export type OccupancyMap = ReadonlyMap<string, readonly OccupancyEntry[]>;

/** A hold that lapsed, reported once (hold.expired webhooks and reputation, §7.3). */
export interface ExpiryEvent {
  readonly hostId: string;
  readonly holdId: string;
  readonly owner: HoldOwner;
  readonly expiredAt: number;
}

/** A booking completeConfirm records; `index` describes its payload (BookingIndexEntry). */
export interface NewBooking {
  readonly bookingId: string;
  readonly payload: string;
  readonly index?: BookingIndexEntry;
}

export interface HoldStore {
  /**
   * Caps, reserve and allocation in one atomic step; all-or-nothing (§4.1, §7.2). The caps count
   * live holds and, §5.10 Locks, the host's active bookings whose index status is "tentative",
   * each against its agent and the pool its hold drew on.
   */
  placeHold(request: PlaceHoldRequest): Promise<HoldOutcome>;
  /** The hold as it stands at `now` (a held hold past its expiry reads as expired). */
  getHold(hostId: string, holdId: string, now: number): Promise<HoldRecord | undefined>;
  /** Idempotent (§5.4). A confirming or booked hold cannot be released. */
  releaseHold(hostId: string, holdId: string, now: number): Promise<Transition<ReleaseResult>>;
  /**
   * Fences the hold for an upstream create: it can no longer lapse, but only for
   * `leaseMs`, after which claimStuckConfirming hands it to a reconciler.
   */
  beginConfirm(
    hostId: string,
    holdId: string,
    now: number,
    leaseMs: number,
  ): Promise<Transition<{ hold: HoldRecord; fence: number }>>;
  /** Records the booking; the hold's allocations become the booking's. Fenced. */
  completeConfirm(
    hostId: string,
    holdId: string,
    fence: number,
    booking: NewBooking,
    now: number,
  ): Promise<Transition<BookingRecord>>;
  /**
   * The upstream create did not happen. "release" frees the time (the slot was taken
   * upstream); "held" returns it to held until its original expiry (a transient error).
   */
  abortConfirm(
    hostId: string,
    holdId: string,
    fence: number,
    disposition: "release" | "held",
    now: number,
  ): Promise<Transition<HoldRecord>>;
  /** Holds whose confirm lease ended, re-fenced to the caller (a reconciler), at most `limit`. */
  claimStuckConfirming(
    hostId: string,
    now: number,
    leaseMs: number,
    limit: number,
  ): Promise<ReadonlyArray<{ hold: HoldRecord; fence: number }>>;

  getBooking(hostId: string, bookingId: string): Promise<BookingRecord | undefined>;
  /**
   * The host's newest booking ids, at most `limit`. Only for a glance at the newest: an answer
   * that must see every booking pages with listBookings or asks one of the indexes below.
   */
  listBookingIds(hostId: string, limit: number): Promise<readonly string[]>;
  /**
   * The host's bookings, newest first, a page at a time; every booking is on exactly one page
   * of a walk from no cursor until no nextCursor (bookings made meanwhile are newer and not
   * on it). Each page is one bounded step for the store.
   */
  listBookings(hostId: string, query: BookingListQuery): Promise<BookingPage>;
  /**
   * Active bookings holding any of these resources for time overlapping `range`, from a time
   * index kept with every booking write (completeConfirm, moveBookingToHold, releaseBooking).
   */
  bookingsOverlapping(
    hostId: string,
    resourceIds: readonly string[],
    range: Interval,
  ): Promise<readonly BookingRecord[]>;
  /**
   * Ids of bookings whose index deadline is at or before `now`, earliest first, at most
   * `limit`, skipping the first `offset` (those a caller could not settle this time).
   */
  bookingsDue(hostId: string, now: number, limit: number, offset?: number): Promise<readonly string[]>;
  /** The booking whose index entry names `key` (BookingIndexEntry.keys). */
  bookingIdByKey(hostId: string, key: string): Promise<string | undefined>;
  /**
   * Indexes the bookings a store kept before it had these indexes, describing each payload with
   * `describe` (undefined: only its time and order are indexed). Once a host is done its index
   * version says so and this is one read; safe to run from several processes at once.
   * Returns how many bookings it indexed.
   */
  backfillBookingIndex(
    hostId: string,
    describe: (payload: string) => BookingIndexEntry | undefined,
  ): Promise<number>;
  /** Cancelled, declined or expired: frees its time; idempotent. */
  releaseBooking(hostId: string, bookingId: string, now: number): Promise<Transition<BookingRecord>>;
  /** §5.7 acceptance: the booking takes the change hold's time and frees its old time, atomically. */
  moveBookingToHold(
    hostId: string,
    bookingId: string,
    holdId: string,
    now: number,
  ): Promise<Transition<BookingRecord>>;
  /**
   * Replaces the booking's payload. With `ifPayload`, only when the stored payload is
   * exactly that (compare-and-set), so concurrent updates of one booking never lose one.
   * `index` describes the new payload and is written in the same step; without it the
   * booking's index entry stays as it was.
   */
  updateBookingPayload(
    hostId: string,
    bookingId: string,
    payload: string,
    ifPayload?: string,
    index?: BookingIndexEntry,
  ): Promise<Transition<BookingRecord>>;
  /**
   * Attendance on an active booking. `end` (completed only) ends an open-ended booking: its
   * time beyond the end is freed in the same step (SchCP §4.2); an end not before the stored
   * one changes nothing.
   */
  markAttendance(
    hostId: string,
    bookingId: string,
    attendance: "completed" | "no_show",
    end?: number,
  ): Promise<Transition<BookingRecord>>;
  /** §7.2: kept an appointment here: a booking not released, not a no-show, whose end has passed. */
  isPrincipalProven(hostId: string, principal: string, now: number): Promise<boolean>;

  /**
   * Read-only snapshot of what occupies these resources over `range` at `now`: live holds
   * (not lapsed), active bookings (agent: true) and imported busy blocks (agent: false,
   * units Infinity: a busy block fills any capacity). For availability (§5.1), which is a
   * snapshot; placeHold is where allocation is atomic.
   */
  listOccupancy(
    hostId: string,
    resourceIds: readonly string[],
    range: Interval,
    now: number,
  ): Promise<OccupancyMap>;

  /** Busy time imported from upstream for one resource and source, replacing the previous set. */
  replaceBusy(hostId: string, resourceId: string, source: string, busy: readonly Interval[]): Promise<void>;

  /** Holds and bookings counted against a mandate link at this host (§3.3, §7.1). */
  countForMandate(hostId: string, rootIss: string, jti: string, excludeHoldId?: string): Promise<number>;

  /** Frees lapsed holds of a host (the active sweeper); returns how many it expired. */
  sweepExpired(hostId: string, now: number, limit: number): Promise<number>;
  /** Hosts that have had holds, for the sweeper. */
  listHosts(): Promise<readonly string[]>;
  /** Each expiry exactly once across consumers, oldest first. */
  takeExpiryEvents(hostId: string, limit: number): Promise<readonly ExpiryEvent[]>;
}

export type ReputationSubject =
  | { readonly kind: "agent"; readonly id: string }
  | { readonly kind: "principal"; readonly id: string }
  | { readonly kind: "attester"; readonly id: string };

export type ReputationOutcome = "expired" | "confirmed" | "released";

/** Exponentially decayed counts (half-life 7 days) as of `at` (§7.3). */
export interface ReputationCounts {
  readonly expired: number;
  readonly confirmed: number;
  readonly released: number;
  /** Undecayed number of outcomes ever recorded (the min_sample gate). */
  readonly lifetime: number;
  readonly at: number;
}

export interface ReputationStore {
  recordOutcome(subject: ReputationSubject, outcome: ReputationOutcome, now: number): Promise<void>;
  reputation(subject: ReputationSubject, now: number): Promise<ReputationCounts>;
}

export interface IdempotencyScope {
  readonly agentKey: string;
  readonly idempotencyKey: string;
}

export interface StoredResponse {
  readonly status: number;
  readonly body: string;
}

export interface IdempotencyRecord {
  readonly requestHash: string;
  readonly principal: string | null;
  readonly response: StoredResponse;
  readonly createdAt: number;
}

export type IdempotencyBegin =
  | { readonly state: "new"; readonly fence: string }
  | { readonly state: "replay"; readonly record: IdempotencyRecord }
  | { readonly state: "conflict"; readonly record: IdempotencyRecord }
  | { readonly state: "in_progress" };

/** §9.1: (agent keyid, idempotency_key) -> (request hash, principal, response), kept ≥ 24 h. */
export interface IdempotencyStore {
  beginIdempotent(
    scope: IdempotencyScope,
    requestHash: string,
    now: number,
    lockMs: number,
  ): Promise<IdempotencyBegin>;
  completeIdempotent(
    scope: IdempotencyScope,
    fence: string,
    record: { requestHash: string; principal: string | null; response: StoredResponse },
    now: number,
    retainMs: number,
  ): Promise<boolean>;
  /** Nothing stored: refusals of the credential and transient failures (§9.1). */
  abandonIdempotent(scope: IdempotencyScope, fence: string): Promise<void>;
}

/** Infrastructure failure: the store could not be reached or did not answer. */
export class HoldStoreUnavailableError extends Error {
  readonly code = "store_unavailable" as const;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "HoldStoreUnavailableError";
  }
}

/** The hold store and its side stores; NonceMemory is the RFC 9421 replay memory (SchCP §3.2). */
export interface GatewayStore
  extends HoldStore, ReputationStore, NonceMemory, IdempotencyStore, WaitlistStore {
  close(): Promise<void>;
}
