/**
 * Receipts (SchCP §5.3): the host's signed evidence of the booking as it now stands, naming
 * the contract (offer_sha256), the contract's retention and how the person agreed (consent),
 * and the BookingResponse every booking operation answers with. Signed by the SchCP edge's
 * bookingAttachment hook (edge.ts) whenever the core writes a booking that carries a SchCP
 * offer, so the stored receipt is always of the booking as stored.
 */
import type { HostRuntime } from "../../booking/api.js";
import { signReceipt } from "../../protocol/schcp/receipt/index.js";
import type { BookingResponse, ReceiptClaims } from "../../protocol/schcp/types.js";
import type { BookingState } from "../../booking/bookings/state.js";
import { schcpBooking, type SchcpOffer } from "./attachment.js";
import { buildBooking } from "./wire.js";

/** The claims of the receipt of `state` on `signed`, issued at `now` (epoch ms). */
function receiptClaims(
  state: BookingState,
  host: HostRuntime,
  signed: SchcpOffer,
  now: number,
): ReceiptClaims {
  return {
    v: "0.4",
    iss: host.config.id,
    iat: Math.floor(now / 1000),
    booking: buildBooking(state, host, signed),
    offer_sha256: signed.offerSha256,
    retention: state.contract.retention,
    consent: { ...state.consent },
  };
}

/**
 * Signs a fresh receipt with the host's first key. The booking was built here from our own
 * state, so a receipt the schema refuses is a gateway bug: it throws rather than hand an
 * agent something it must refuse (§5.3).
 */
export async function issueReceipt(
  state: BookingState,
  host: HostRuntime,
  signed: SchcpOffer,
  now: number,
): Promise<string> {
  const key = host.keys[0];
  if (key === undefined) throw new Error(`host ${host.config.id} has no signing key`);
  const claims = receiptClaims(state, host, signed, now);
  const receipt = await signReceipt(claims, key);
  if (!receipt.ok)
    throw new Error(`receipt for ${state.bookingId}: ${receipt.error.field} ${receipt.error.message}`);
  return receipt.value;
}

/**
 * §5.3: { booking, receipt, offer } where offer is the booking's current contract. Only for a
 * booking that stands on a SchCP offer: the SchCP use cases answer NOT_FOUND for any other.
 */
export function bookingResponse(state: BookingState, host: HostRuntime): BookingResponse {
  const signed = schcpBooking(state.attachments);
  if (signed === undefined) throw new Error(`booking ${state.bookingId} carries no SchCP offer`);
  return {
    booking: buildBooking(state, host, signed),
    receipt: signed.receipt,
    offer: signed.offer,
    // §5.5, §5.12: a meeting booking's response carries the contract itself.
    ...(state.meeting !== undefined && { contract: state.meeting.contract }),
    ...(state.meeting?.pendingRevision !== undefined && {
      pending_contract: state.meeting.pendingRevision.terms.contract,
    }),
  };
}
