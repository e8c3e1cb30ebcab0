/** The parameters of the shared hold engine (createHold), for booking holds and change offers. */
import type { Caller } from "../api.js";
import type { BookingState } from "../bookings/state.js";
import type { Place } from "../contract.js";

export interface CreateHoldParams {
  readonly caller: Caller;
  readonly serviceId: string;
  /** Epoch ms. */
  readonly start: number;
  /** Requested TTL (> 0); granted min(requested, policy max, reputation caps) (§5.2, §7.3). */
  readonly ttlMs: number;
  readonly callbackUrl?: string;
  readonly partySize: number;
  readonly place?: Place;
  /** A selectable service's chosen resource (§4.1, §5.2 resource). */
  readonly resourceId?: string;
  /**
   * A resource the edge pins whatever the service's `selectable` rule (an OSBP provider: the
   * platform's staff member the person asked for). It must be of a type the service requires.
   */
  readonly pinnedResourceId?: string;
  /**
   * The hold id to use instead of a new one: an edge without a hold step derives it from its
   * own idempotency key, so a retry finds the attempt's hold (and its upstream key) again.
   */
  readonly holdId?: string;
  readonly kind: "booking" | "change";
  /** For a change offer: the booking it would move, its proposal and who asked (§5.7, §5.8). */
  readonly bookingId?: string;
  readonly proposalId?: string;
  readonly by?: "guest" | "host";
  /** §5.7: a change offer's hold may overlap the booking it belongs to, and nothing else. */
  readonly overlapBookingId?: string;
  /**
   * For a change offer: the booking as it stands. The edges that keep a record with it
   * (its attachments) attach one to the change hold too (SchCP: the signed change offer).
   */
  readonly booking?: BookingState;
  /** For a booking hold: the edges that keep a record with it ("schcp" signs the offer). */
  readonly edges?: readonly string[];
  /** §5.2: a change offer repeats the booking's own retention, not the current policy. */
  readonly retentionOverride?: string;
  /**
   * by "host" only: the booking's principal, so the proposal's hold belongs to the guest
   * who may accept it (the host's request carries no mandate). Default: read from the
   * booking record (bookingId).
   */
  readonly principal?: string | null;
  /** A waitlist offer's hold (§5.9): the entry it is for and which offer of the freed time it is (1–3). */
  readonly waitlist?: { readonly entryId: string; readonly round: number };
}
