/**
 * What the gateway keeps for a booking: the JSON in the hold store's booking payload.
 *
 * The wire Booking (SchCP §5.3, §5.5) is derived from this state every time (wire.ts), so the
 * booking, its receipt and webhooks can never disagree. The contract is the accepted offer's
 * exact bytes and claims: "the booking stands on the offer" (§5.2), so price, lines,
 * retention and reconfirm come from it, never from the host's current policy.
 */
import { err, ok } from "../../protocol/result.js";
import type { Result } from "../../protocol/result.js";
import type {
  BookingAnswer,
  BookingStatus,
  DeclinedChange,
  OfferClaims,
  Place,
  ReceiptConsent,
  RefusalError,
} from "../../protocol/schcp/types.js";

/** The contract a booking stands on: an offer's exact compact JWS, its hash and claims (§5.3). */
export interface Contract {
  readonly offer: string;
  readonly offerSha256: string;
  readonly claims: OfferClaims;
}

/** An open change offer (guest's, §5.7) or host proposal (§5.8, §5.11) and the hold behind it. */
export interface StoredProposal {
  readonly proposalId: string;
  readonly by: "guest" | "host";
  readonly holdId: string;
  readonly contract: Contract;
  readonly start: number;
  /** Service end (no buffer); absent for an open-ended booking. */
  readonly end?: number;
  readonly place?: Place;
  readonly expiresAt: number;
  readonly resourceIds: readonly string[];
  /** §5.7 step 3: the guest accepted; a host_approval host has yet to say yes. */
  readonly awaitingHost?: true;
  /** How the guest agreed to the move; the receipt carries it once the move is made (§5.7). */
  readonly consent?: ReceiptConsent;
}

export interface BookingState {
  readonly v: 1;
  readonly bookingId: string;
  readonly hostId: string;
  /** The hold the booking was confirmed from; the upstream idempotency key is `${hostId}:${holdId}`. */
  readonly holdId: string;
  readonly status: BookingStatus;
  /** iTIP SEQUENCE: bumped on every change the guest must see (§5.6, §5.7, §6). */
  readonly sequence: number;
  readonly serviceId: string;
  readonly start: number;
  /** Service end (no buffer); absent for an open-ended booking until the host ends it (§4.2). */
  readonly end?: number;
  readonly openEnd?: true;
  readonly resourceIds: readonly string[];
  readonly partySize?: number;
  readonly place?: Place;
  readonly contract: Contract;
  /** How the person agreed to the current contract (§5.3 receipt consent). */
  readonly consent: ReceiptConsent;
  /** The latest signed receipt of the booking as it stands. */
  readonly receipt: string;
  readonly upstreamId: string;
  readonly callbackUrl?: string;
  readonly agentKey: string;
  /** Root principal (mandate iss) that owns the booking (§5.5). */
  readonly principal: string;
  /** The contract's retention, repeated by every change offer (§5.2). */
  readonly retention: string;
  readonly answer?: BookingAnswer;
  /** host_approval: the latest time the host answers (§5.2 approval_by). */
  readonly approvalBy?: number;
  readonly proposal?: StoredProposal;
  readonly declinedChange?: DeclinedChange;
  readonly refusal?: RefusalError;
  readonly createdAt: number;
  /** When the booking last changed: the JSCalendar event's `updated` (RFC 8984). */
  readonly updatedAt: number;
}

export function encodeBookingState(state: BookingState): string {
  return JSON.stringify(state);
}

/**
 * Reads a stored payload. Only what the use cases rely on is checked: the payload is written
 * by this module alone, so a failure means corruption, which the caller reports loudly.
 */
export function decodeBookingState(payload: string): Result<BookingState, string> {
  let value: unknown;
  try {
    value = JSON.parse(payload);
  } catch {
    return err("the booking payload is not JSON");
  }
  if (typeof value !== "object" || value === null) return err("the booking payload is not an object");
  const s = value as Partial<BookingState>;
  if (s.v !== 1) return err("unknown booking payload version");
  const strings = [s.bookingId, s.hostId, s.holdId, s.status, s.serviceId, s.receipt, s.upstreamId];
  if (strings.some((x) => typeof x !== "string")) return err("the booking payload lacks an identifier");
  if (typeof s.sequence !== "number" || typeof s.start !== "number")
    return err("the booking payload lacks times");
  if (typeof s.contract?.offer !== "string" || typeof s.contract.claims !== "object") {
    return err("the booking payload lacks its contract");
  }
  return ok(s as BookingState);
}

/** Corrupt stored state is not the caller's fault and not a refusal: it is an internal error. */
export function decodeOrThrow(payload: string, bookingId: string): BookingState {
  const decoded = decodeBookingState(payload);
  if (!decoded.ok) throw new Error(`booking ${bookingId}: ${decoded.error}`);
  return decoded.value;
}

/** Statuses in which the booking still occupies time (§6). */
export const ACTIVE_STATUSES: ReadonlySet<BookingStatus> = new Set([
  "pending_host",
  "tentative",
  "confirmed",
]);
