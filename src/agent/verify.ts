/**
 * The agent's MUSTs on what a host hands back (SchCP §5.2, §5.3, §9.1):
 *
 * verifyHoldOffer: the Hold matches the closed schema; its offer verifies against the
 * discovery keys (kid named there, closed claims, money rules) and comes from the host the
 * agent discovered; and the unsigned Hold says what the signed offer says (hold id, service,
 * start, end, price, total, party, place, resource), so nothing shown beside the offer can
 * differ from the terms the person will accept.
 *
 * verifyBookingReceipt: the BookingResponse matches its closed schema; the receipt verifies
 * against the discovery keys with the agent's own expectations (the offer it accepted, the
 * mandate it used, its contract's retention, §5.3); the unsigned booking beside it is the
 * receipt's booking; a contract offer beside it is the one the booking names. The booking
 * returned is the receipt's, since agents SHOULD take it from the signed receipt (§9.1).
 */
import { isDeepStrictEqual } from "node:util";
import { parseSchcpMoney, sameMoney as equalMoney } from "../protocol/money/index.js";
import { err, ok } from "../protocol/result.js";
import type { Result } from "../protocol/result.js";
import { offerSha256, verifyOffer } from "../protocol/schcp/offer/index.js";
import type { VerifiedOffer } from "../protocol/schcp/offer/index.js";
import { verifyReceipt } from "../protocol/schcp/receipt/index.js";
import type { ReceiptExpectations } from "../protocol/schcp/receipt/index.js";
import type {
  Booking,
  BookingResponse,
  ChangeOfferResponse,
  Hold,
  Jwk,
  Proposal,
  ReceiptClaims,
} from "../protocol/schcp/types.js";
import { validateSchcp } from "../protocol/schcp/validate.js";
import { parseInstant } from "../protocol/time/index.js";
import { agentError } from "./errors.js";
import type { AgentError } from "./errors.js";

/** What verification needs from discovery: the host id and its published keys (§2.1). */
export interface HostKeys {
  readonly hostId: string;
  readonly keys: readonly Jwk[];
}

export interface VerifiedHold {
  readonly hold: Hold;
  readonly offer: VerifiedOffer;
}

export async function verifyHoldOffer(
  hold: unknown,
  discovery: HostKeys,
): Promise<Result<VerifiedHold, AgentError>> {
  const shape = validateSchcp("Hold", hold);
  if (!shape.ok)
    return offerInvalid(shape.error.field, `the hold fails the Hold schema: ${shape.error.message}`);
  const h = shape.value;
  const offer = await verifyOffer(h.offer, discovery.keys, { expectedIss: discovery.hostId });
  if (!offer.ok) return offerInvalid(`/offer${offer.error.field}`, offer.error.message);
  const c = offer.value.claims;

  if (c.kind !== "booking") return offerInvalid("/offer/payload/kind", "a hold's offer is a booking offer");
  if (c.hold_id !== h.hold_id) return offerInvalid("/hold_id", "the offer is for another hold");
  if (c.service.id !== h.service_id) return offerInvalid("/service_id", "the offer is for another service");
  if (!sameInstant(h.start, c.slot.start))
    return offerInvalid("/start", "the hold's start is not the offer's");
  if (!sameOptionalInstant(h.end, c.slot.end))
    return offerInvalid("/end", "the hold's end is not the offer's");
  if (h.open_end !== c.open_end)
    return offerInvalid("/open_end", "the hold and the offer disagree on open_end");
  if (!sameMoney(h.price, c.price)) return offerInvalid("/price", "the hold's price is not the offer's");
  if (!sameMoney(h.total, c.total)) return offerInvalid("/total", "the hold's total is not the offer's");
  if ((h.party_size ?? 1) !== (c.party_size ?? 1)) {
    return offerInvalid("/party_size", "the hold's party size is not the offer's");
  }
  if (!isDeepStrictEqual(h.place, c.place))
    return offerInvalid("/place", "the hold's place is not the offer's");
  if (h.resource !== c.resource) return offerInvalid("/resource", "the hold's resource is not the offer's");
  return ok({ hold: h, offer: offer.value });
}

/** What the agent knows about the booking it made or changed (§5.3, §5.7, §9.1). */
export type BookingExpectations = Omit<ReceiptExpectations, "expectedIss">;

export interface VerifiedBooking {
  /** The receipt's booking: the signed one (§9.1). */
  readonly booking: Booking;
  readonly receipt: ReceiptClaims;
  readonly receiptCompact: string;
  readonly hostId: string;
  readonly response: BookingResponse;
}

export async function verifyBookingReceipt(
  resp: unknown,
  discovery: HostKeys,
  expect: BookingExpectations = {},
): Promise<Result<VerifiedBooking, AgentError>> {
  const shape = validateSchcp("BookingResponse", resp);
  if (!shape.ok) {
    return receiptInvalid(
      shape.error.field,
      `the response fails the BookingResponse schema: ${shape.error.message}`,
    );
  }
  const response = shape.value;
  const receipt = await verifyReceipt(response.receipt, discovery.keys, {
    ...expect,
    expectedIss: discovery.hostId,
  });
  if (!receipt.ok) return receiptInvalid(`/receipt${receipt.error.field}`, receipt.error.message);
  const signed = receipt.value.claims.booking;

  // The unsigned booking is a convenience copy; one that differs from the signed one is a lie.
  if (!isDeepStrictEqual(JSON.parse(JSON.stringify(response.booking)), JSON.parse(JSON.stringify(signed)))) {
    return receiptInvalid("/booking", "the booking beside the receipt is not the receipt's booking");
  }
  if (response.offer !== undefined) {
    if (offerSha256(response.offer) !== signed.offer_sha256) {
      return receiptInvalid("/offer", "the contract offer beside the booking is not the one it stands on");
    }
    const offer = await verifyOffer(response.offer, discovery.keys, { expectedIss: discovery.hostId });
    if (!offer.ok) return receiptInvalid(`/offer${offer.error.field}`, offer.error.message);
  }
  return ok({
    booking: signed,
    receipt: receipt.value.claims,
    receiptCompact: receipt.value.compact,
    hostId: discovery.hostId,
    response,
  });
}

export interface VerifiedChangeOffer {
  readonly proposal: Proposal;
  readonly offer: VerifiedOffer;
}

/**
 * A change offer (§5.7 step 1): the response matches its closed schema; the offer verifies
 * against the discovery keys; it is a change of this booking whose prev is the hash of the
 * booking's current contract (the hash chain §5.7 lets either side check); and the proposal's
 * start, end and place are the offer's.
 */
export async function verifyChangeOffer(
  resp: unknown,
  discovery: HostKeys,
  expect: { readonly bookingId: string; readonly currentOfferSha256: string | null },
): Promise<Result<VerifiedChangeOffer, AgentError>> {
  const shape = validateSchcp("ChangeOfferResponse", resp);
  if (!shape.ok)
    return offerInvalid(
      shape.error.field,
      `the response fails the ChangeOfferResponse schema: ${shape.error.message}`,
    );
  const { proposal }: ChangeOfferResponse = shape.value;
  const offer = await verifyOffer(proposal.offer, discovery.keys, { expectedIss: discovery.hostId });
  if (!offer.ok) return offerInvalid(`/proposal/offer${offer.error.field}`, offer.error.message);
  const c = offer.value.claims;
  if (c.kind !== "change" || c.booking_id !== expect.bookingId) {
    return offerInvalid("/proposal/offer/payload/booking_id", "the offer is not a change of this booking");
  }
  if ((c.prev ?? null) !== expect.currentOfferSha256) {
    return offerInvalid(
      "/proposal/offer/payload/prev",
      "the change does not extend the booking's current contract",
    );
  }
  if (!sameInstant(proposal.start, c.slot.start))
    return offerInvalid("/proposal/start", "the proposal's start is not the offer's");
  if (!sameOptionalInstant(proposal.end, c.slot.end))
    return offerInvalid("/proposal/end", "the proposal's end is not the offer's");
  if (!isDeepStrictEqual(proposal.place, c.place))
    return offerInvalid("/proposal/place", "the proposal's place is not the offer's");
  return ok({ proposal, offer: offer.value });
}

export interface VerifiedHostProposal {
  readonly proposal: Proposal;
  readonly offer: VerifiedOffer;
  /** What accepting names (offer_sha256, §5.3): the hash of the proposal's exact offer bytes. */
  readonly sha256: string;
  /**
   * A counter (§5.11): the host answered a pending_host booking with these terms instead of yes
   * or no. Accepting confirms the booking at them; declining leaves it waiting for the host.
   */
  readonly counter: boolean;
}

/**
 * The host's open proposal on a booking the agent has read and verified (verifyBookingReceipt):
 * a host change offer (§5.8) or a counter to a pending booking (§5.11), checked as any change
 * offer is (verifyChangeOffer: the host's signature, a change of this booking extending its
 * current contract, the proposal's start, end and place the offer's). Undefined when the
 * booking carries no proposal by the host.
 */
export async function verifyHostProposal(
  booking: VerifiedBooking,
  discovery: HostKeys,
): Promise<Result<VerifiedHostProposal | undefined, AgentError>> {
  const p = booking.booking.proposal;
  if (p === undefined || p.by !== "host") return ok(undefined);
  const checked = await verifyChangeOffer({ proposal: p }, discovery, {
    bookingId: booking.booking.booking_id,
    currentOfferSha256: booking.booking.offer_sha256 ?? null,
  });
  if (!checked.ok) return checked;
  return ok({
    proposal: p,
    offer: checked.value.offer,
    sha256: offerSha256(p.offer),
    counter: booking.booking.status === "pending_host",
  });
}

function offerInvalid(field: string, message: string): Result<never, AgentError> {
  return err(agentError("offer_invalid", message, { field }));
}

function receiptInvalid(field: string, message: string): Result<never, AgentError> {
  return err(agentError("receipt_invalid", message, { field }));
}

/** The same moment, however the offsets are written (the schema already checked the format). */
function sameInstant(a: string, b: string): boolean {
  const x = parseInstant(a, "");
  const y = parseInstant(b, "");
  return x.ok && y.ok && x.value.epochMs === y.value.epochMs;
}

function sameOptionalInstant(a: string | undefined, b: string | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return sameInstant(a, b);
}

/** The same amount in the same currency ("79" and "79.00" CAD are equal, §2.1). */
function sameMoney(a: unknown, b: unknown): boolean {
  if (a === undefined || b === undefined) return a === b;
  const x = parseSchcpMoney(a, "");
  const y = parseSchcpMoney(b, "");
  return x.ok && y.ok && equalMoney(x.value, y.value);
}

export interface VerifiedParticipantBooking extends VerifiedBooking {
  /** The contract the participant is asked to accept: verified, and its hash (§5.10). */
  readonly offer: VerifiedOffer;
  /** This participant's entry on the booking (status, role, confirm_by). */
  readonly participant: NonNullable<Booking["participants"]>[number];
}

/**
 * A booking as a required participant reads it (GET /bookings/{id} under their own mandate,
 * §5.5, §5.10): the receipt and booking as verifyBookingReceipt checks them (the participant
 * did not make the booking, so no mandate or offer is expected of it), and the contract the
 * response carries as offer, verified against the host's keys and named by the booking's
 * offer_sha256. The participant answers with that hash (SchcpClient.respond).
 */
export async function verifyParticipantBooking(
  resp: unknown,
  discovery: HostKeys,
  who: string,
): Promise<Result<VerifiedParticipantBooking, AgentError>> {
  const verified = await verifyBookingReceipt(resp, discovery);
  if (!verified.ok) return verified;
  const compact = verified.value.response.offer;
  if (compact === undefined)
    return receiptInvalid("/offer", "a participant's read carries the contract as offer");
  const offer = await verifyOffer(compact, discovery.keys, { expectedIss: discovery.hostId });
  if (!offer.ok) return receiptInvalid(`/offer${offer.error.field}`, offer.error.message);
  const participant = verified.value.booking.participants?.find((p) => p.who === who && p.role !== "booker");
  if (participant === undefined)
    return receiptInvalid(
      "/booking/participants",
      "the booking does not name this principal as a participant",
    );
  return ok({ ...verified.value, offer: offer.value, participant });
}
