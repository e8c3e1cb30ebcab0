/**
 * The waitlist's part of the hold store (SchCP §5.9): entries kept per host, first come first
 * served, and the one atomic step that frees a booking's (or an offered hold's) time and offers
 * it to the first waiting entry it suits, before anyone else can see it.
 *
 * An entry counts against its mandate links' max_bookings while it waits (§5.9), in the same
 * counts holds use (§7.1), and against max_entries_per_agent while it waits or holds an offer.
 * The store never reads the payload: the core keeps the entry's terms there.
 */
import type { Interval } from "../calendar/interval.js";
import type { Result } from "../protocol/result.js";
import type { BookingRecord, HoldRecord, HoldRefusalReason, MandateCount, PlaceHoldRequest } from "./port.js";

export type WaitlistStatus = "waiting" | "offered" | "booked" | "left" | "lapsed" | "expired";

export interface WaitlistRecord {
  readonly hostId: string;
  readonly entryId: string;
  readonly serviceId: string;
  readonly agentKey: string;
  readonly principal: string;
  /** The times the entry would take, half-open, epoch ms. */
  readonly window: Interval;
  readonly createdAt: number;
  /** Order in the line: first come, first served. */
  readonly seq: number;
  readonly status: WaitlistStatus;
  /** Waiting after this instant it is expired (window end, or the mandate's expiry). */
  readonly until: number;
  readonly mandates: readonly MandateCount[];
  /** The hold an offer placed (status offered, and after it). */
  readonly holdId?: string;
  /** Opaque to the store: the core's terms of the entry. */
  readonly payload: string;
}

export interface WaitlistJoin {
  readonly hostId: string;
  readonly entryId: string;
  readonly serviceId: string;
  readonly agentKey: string;
  readonly principal: string;
  readonly window: Interval;
  readonly until: number;
  readonly mandates: readonly MandateCount[];
  /** policies.waitlist.max_entries_per_agent. */
  readonly maxPerAgent: number;
  readonly now: number;
  readonly payload: string;
}

export interface WaitlistJoinRefusal {
  readonly reason: "waitlist_limit" | "mandate_limit" | "entry_id_in_use";
  readonly limit?: number;
}

/** How the time comes free, in the same step as the offer. */
export type FreedRelease =
  /** A booking ends (cancelled, declined, lapsed approval): releaseBooking. */
  | { readonly kind: "booking"; readonly bookingId: string }
  /** A booking moves to its change hold's time (§5.7): moveBookingToHold; its old time is freed. */
  | { readonly kind: "move"; readonly bookingId: string; readonly holdId: string }
  /**
   * An offered hold ends: the entry that held it leaves ("left", the hold released) or its
   * offer lapsed ("lapsed", the hold expired; §7.3 counts it as any expiry).
   */
  | {
      readonly kind: "offer";
      readonly holdId: string;
      readonly entryId: string;
      readonly entryStatus: "left" | "lapsed";
    };

/** One waiting entry's offer, priced and signed before the step: placed only if it still waits. */
export interface OfferCandidate {
  readonly entryId: string;
  readonly hold: PlaceHoldRequest;
  /**
   * §5.9 "a lapse moves down the line": once this offer's hold lapses, its time stays with the
   * line (occupied for everyone) until offerFreed with the hold as `release` moves it to the
   * next entry; false (or absent) for the last offer a freed time gets, whose lapse makes the
   * time public at once.
   */
  readonly line?: boolean;
}

export interface FreedOffer {
  readonly hostId: string;
  readonly now: number;
  readonly release: FreedRelease;
  /** In line order; the first that still waits and whose hold is placed gets the offer. */
  readonly candidates: readonly OfferCandidate[];
}

export interface FreedOutcome {
  /** The release itself; nothing is offered when it was refused. */
  readonly released: Result<
    { readonly booking?: BookingRecord; readonly hold?: HoldRecord },
    { readonly reason: string }
  >;
  /** Resources the release freed (allocations of the booking's old time or of the offered hold). */
  readonly freed: readonly string[];
  /** The entry that got the offer, and its hold. */
  readonly offered?: { readonly entryId: string; readonly hold: HoldRecord };
  /** Why each candidate before it was passed over: the hold refusal, "not_freed" or "not_waiting". */
  readonly passed: ReadonlyArray<{
    readonly entryId: string;
    readonly reason: HoldRefusalReason | "not_freed" | "not_waiting";
  }>;
}

export interface WaitlistStore {
  /** Caps (max_entries_per_agent, max_bookings) and the entry in one atomic step (§5.9). */
  joinWaitlist(join: WaitlistJoin): Promise<Result<WaitlistRecord, WaitlistJoinRefusal>>;
  getWaitlistEntry(hostId: string, entryId: string): Promise<WaitlistRecord | undefined>;
  /** Entries still waiting, first in line first, at most `limit`. */
  waitingEntries(hostId: string, limit: number): Promise<readonly WaitlistRecord[]>;
  /** Entries holding an offer (the sweeper's lapse check), at most `limit`. */
  offeredEntries(hostId: string, limit: number): Promise<readonly WaitlistRecord[]>;
  /**
   * Moves an entry from one of `from` to `to` (compare-and-set), freeing its counts when `to`
   * is final. Undefined when the entry is not there or not in one of `from`.
   */
  setWaitlistStatus(
    hostId: string,
    entryId: string,
    from: readonly WaitlistStatus[],
    to: WaitlistStatus,
  ): Promise<WaitlistRecord | undefined>;
  /**
   * Frees the time and offers it in ONE atomic step (§5.9 "in the same transaction and before it
   * is visible to anyone else"): the release, then each candidate in order until one's hold is
   * placed under every hold control (§7.2) on at least one resource the release freed.
   */
  offerFreed(offer: FreedOffer): Promise<FreedOutcome>;
}
