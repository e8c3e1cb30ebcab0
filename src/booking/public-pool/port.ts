/**
 * The public booking pool: a per-host bound on the time newcomers can take, on every edge.
 *
 * The model is SchCP §7.2 max_active_unproven: "caps the holds held at once, across all
 * identities, by principals that have not yet kept an appointment at this host. This is the
 * sybil bound: a script that mints a thousand identities can occupy at most this many slots,
 * while returning guests are unaffected." An A2A contact e-mail and an OSBP mandate (unsigned
 * JSON in OSBP v0.1.0) are as free to mint as a SchCP principal key, and a booking that waits
 * for the host's approval takes the host's time (and its approver's attention) just as a hold
 * does (§5.10 "Locks": "A tentative booking counts against ... the new-guest pool (§7.2) like
 * a hold"). So every booking by a caller who is not established holds one place here, from
 * its hold until the booking ends (cancelled, declined, lapsed) or its time has passed, and
 * the places are counted per host and per network origin at that host.
 *
 * A place is named by the id of the hold that takes the time (the booking keeps it as its
 * holdId), and kept until `until`, the end of the time it took: a booking can hold no place
 * past its own end. Ended bookings and abandoned holds free theirs sooner: the core prunes the
 * places whose hold or booking has ended when a cap is reached (take-place.ts).
 */
import type { Result } from "../../protocol/result.js";

/** The two caps; 0 refuses every newcomer booking at the host. */
export interface PoolCaps {
  readonly perHost: number;
  readonly perOrigin: number;
}

export interface PoolPlace {
  /** The hold id that takes the time; the booking made from it keeps it as holdId. */
  readonly id: string;
  /** The origin's tag (a hash of the network origin or edge channel: no address is stored). */
  readonly origin: string;
  /** Epoch ms: the end of the time taken; the place lapses then at the latest. */
  readonly until: number;
}

/** A place counted against the cap that refused, for the core to check it still holds time. */
export interface HeldPlace {
  readonly id: string;
  /** Epoch ms the place was taken. */
  readonly takenAt: number;
}

/** The cap that refused a place. */
interface PoolFull {
  readonly scope: "host" | "origin";
  readonly limit: number;
  /** The places counted against that cap (at most the cap). */
  readonly places: readonly HeldPlace[];
  /** The earliest `until` among them (epoch ms). */
  readonly earliestUntil: number;
}

/** The place taken, or the cap that refused it. */
export type TakeOutcome = Result<undefined, PoolFull>;

/**
 * Counted atomically: `take` counts and adds in one step (one Lua script in Redis), so any
 * number of concurrent takes across processes let exactly as many through as there is room.
 * Taking a place that is already held (the same id) succeeds and changes nothing.
 */
export interface PublicPoolStore {
  take(hostId: string, place: PoolPlace, caps: PoolCaps, now: number): Promise<TakeOutcome>;
  /** Frees these places (idempotent); a store may forget the places lapsed at `now` too. */
  release(hostId: string, ids: readonly string[], now: number): Promise<void>;
  /** How many places the host's pool holds at `now` (operators, tests). */
  count(hostId: string, now: number): Promise<number>;
}

/**
 * Defaults: a host keeps at most 12 bookings and holds from newcomers at once, at most 4 of
 * them from one network origin. A host sets its own in policies.public_booking.
 */
export const DEFAULT_POOL_CAPS: PoolCaps = { perHost: 12, perOrigin: 4 };
