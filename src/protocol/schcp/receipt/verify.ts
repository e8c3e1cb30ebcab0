/**
 * Verifying a receipt, the agent's MUSTs of SchCP §5.3 and §5.7:
 *
 * 1. typ is exactly schcp-receipt+jwt; kid names a discovery key and the signature verifies
 *    with it (host-jws.ts, as for offers);
 * 2. the claims pass checkReceiptClaims: closed receipt and booking, one contract hash, no
 *    move waiting past the booking's start;
 * 3. what the agent knows, when it made or changed the booking: the host (iss), the booking
 *    id, the mandate it used (consent.mandate), its contract's retention (compared as a
 *    length: P1W and P7D are the same, §2.1), the offer_sha256 it just accepted (§9.1
 *    SHOULD: a genuine receipt of another booking confirms nothing), and, for a move
 *    waiting for the host, that proposal.offer is the change offer it accepted (§5.7).
 * Field names: "/header/kid", "/signature", "/payload/consent/mandate", ….
 */
import { err, fieldError, ok } from "../../result.js";
import type { FieldError, Result } from "../../result.js";
import { parseRetention } from "../../time/index.js";
import { offerSha256 } from "../offer/hash.js";
import { payloadField, verifyHostJws } from "../offer/host-jws.js";
import type { Jwk, ReceiptClaims } from "../types.js";
import { checkReceiptClaims } from "./claims.js";
import { RECEIPT_TYP } from "./sign.js";

export interface VerifiedReceipt {
  claims: ReceiptClaims;
  compact: string;
  kid: string;
}

export type ReceiptCheckError = FieldError<"receipt_invalid">;

export interface ReceiptExpectations {
  expectedIss?: string;
  /** The contract the agent accepted; null for a booking it knows has none. */
  offerSha256?: string | null;
  /** jti of the root mandate the agent used (§5.3 consent.mandate). */
  mandateJti?: string;
  /** The retention of the agent's contract. */
  retention?: string;
  bookingId?: string;
  /** The change offer the agent accepted, checked against a move waiting for the host (§5.7). */
  changeOfferSha256?: string;
}

export async function verifyReceipt(
  compact: unknown,
  discoveryKeys: readonly Jwk[],
  expect: ReceiptExpectations = {},
): Promise<Result<VerifiedReceipt, ReceiptCheckError>> {
  const refuse = (field: string, message: string) => err(fieldError("receipt_invalid", field, message));
  const jws = await verifyHostJws(compact, discoveryKeys, RECEIPT_TYP, "receipt_invalid");
  if (!jws.ok) return jws;

  const checked = checkReceiptClaims(jws.value.decoded.payload);
  if (!checked.ok) return refuse(payloadField(checked.error.field), checked.error.message);
  const claims = checked.value;
  const { booking } = claims;

  if (expect.expectedIss !== undefined && claims.iss !== expect.expectedIss) {
    return refuse(
      "/payload/iss",
      `the receipt is from "${claims.iss}", not the host "${expect.expectedIss}"`,
    );
  }
  if (expect.bookingId !== undefined && booking.booking_id !== expect.bookingId) {
    return refuse("/payload/booking/booking_id", `the receipt is for booking "${booking.booking_id}"`);
  }
  if (expect.offerSha256 !== undefined && (claims.offer_sha256 ?? null) !== expect.offerSha256) {
    return refuse("/payload/offer_sha256", "the receipt names another contract than the one accepted");
  }
  if (expect.mandateJti !== undefined && claims.consent?.mandate !== expect.mandateJti) {
    return refuse("/payload/consent/mandate", "the receipt names another mandate than the one used");
  }
  if (expect.retention !== undefined && !sameRetention(claims.retention, expect.retention)) {
    return refuse(
      "/payload/retention",
      `the receipt states retention ${claims.retention}, the contract ${expect.retention}`,
    );
  }
  const proposal = booking.proposal;
  if (
    expect.changeOfferSha256 !== undefined &&
    proposal?.awaiting_host === true &&
    offerSha256(proposal.offer) !== expect.changeOfferSha256
  ) {
    return refuse(
      "/payload/booking/proposal/offer",
      "the move waiting for the host is not the change offer accepted",
    );
  }
  return ok({ claims, compact: jws.value.decoded.compact, kid: jws.value.kid });
}

/** Same length (§2.1: equivalent forms are the same); unreadable ones only if spelled alike. */
function sameRetention(a: string, b: string): boolean {
  const x = parseRetention(a, "");
  const y = parseRetention(b, "");
  return x.ok && y.ok ? x.value === y.value : a === b;
}
