/**
 * Receipts (SchCP §5.3): the host's signed evidence of the booking as it now stands, naming
 * the contract (offer_sha256), the contract's retention and how the person agreed (consent),
 * and the BookingResponse every booking operation answers with.
 */
import type { HostRuntime } from "../api.js";
import { signReceipt } from "../../protocol/schcp/receipt/index.js";
import type { BookingResponse, ReceiptClaims } from "../../protocol/schcp/types.js";
import type { BookingState } from "./state.js";
import { buildBooking } from "./wire.js";

/** The claims of the receipt of `state`, issued at `now` (epoch ms). */
export function receiptClaims(state: BookingState, host: HostRuntime, now: number): ReceiptClaims {
  return {
    v: "0.4",
    iss: host.config.id,
    iat: Math.floor(now / 1000),
    booking: buildBooking(state, host),
    offer_sha256: state.contract.offerSha256,
    retention: state.retention,
    consent: state.consent,
  };
}

/**
 * Signs a fresh receipt with the host's first key. The booking was built here from our own
 * state, so a receipt the schema refuses is a gateway bug: it throws rather than hand an
 * agent something it must refuse (§5.3).
 */
export async function issueReceipt(state: BookingState, host: HostRuntime, now: number): Promise<string> {
  const key = host.keys[0];
  if (key === undefined) throw new Error(`host ${host.config.id} has no signing key`);
  const signed = await signReceipt(receiptClaims(state, host, now), key);
  if (!signed.ok)
    throw new Error(`receipt for ${state.bookingId}: ${signed.error.field} ${signed.error.message}`);
  return signed.value;
}

/** The state with a fresh receipt of itself. */
export async function withReceipt(
  state: BookingState,
  host: HostRuntime,
  now: number,
): Promise<BookingState> {
  return { ...state, receipt: await issueReceipt(state, host, now) };
}

/** §5.3: { booking, receipt, offer } where offer is the booking's current contract. */
export function bookingResponse(state: BookingState, host: HostRuntime): BookingResponse {
  return { booking: buildBooking(state, host), receipt: state.receipt, offer: state.contract.offer };
}
