/**
 * What the SchCP edge keeps with a hold, a proposal and a booking (attachments.schcp): the
 * signed offer's exact compact JWS, its hash and claims (§5.2, §5.3 "every acceptance names
 * its contract"); with a hold, the wire Hold as created; with a booking, its latest signed
 * receipt. Only this folder reads or writes it; the core copies it along untouched.
 */
import type { Hold, OfferClaims } from "../../protocol/schcp/types.js";
import type { Attachments } from "../../booking/contract.js";

export const SCHCP = "schcp";

/** The signed offer a hold, proposal or booking stands on. */
export interface SchcpOffer {
  readonly offer: string;
  readonly offerSha256: string;
  readonly claims: OfferClaims;
}

export interface SchcpHoldAttachment extends SchcpOffer {
  /** The wire Hold as created; status and expiry are re-derived from the store's record. */
  readonly hold: Hold;
}

export interface SchcpBookingAttachment extends SchcpOffer {
  /** The latest signed receipt of the booking as it stands (§5.3). */
  readonly receipt: string;
}

/** Whether a record (an attachment read back from the store) is a SchCP offer. */
export function isSchcpOffer(v: unknown): v is SchcpOffer {
  if (typeof v !== "object" || v === null) return false;
  const o = v as Partial<SchcpOffer>;
  return typeof o.offer === "string" && typeof o.offerSha256 === "string" && typeof o.claims === "object";
}

/** The SchCP offer kept with a hold, proposal or booking; undefined when made through another edge. */
export function schcpOffer(attachments: Attachments | undefined): SchcpOffer | undefined {
  const a = attachments?.[SCHCP];
  return isSchcpOffer(a) ? a : undefined;
}

export function schcpHold(attachments: Attachments | undefined): SchcpHoldAttachment | undefined {
  const a = schcpOffer(attachments) as Partial<SchcpHoldAttachment> | undefined;
  return a !== undefined && typeof a.hold === "object" && a.hold !== null
    ? (a as SchcpHoldAttachment)
    : undefined;
}

export function schcpBooking(attachments: Attachments | undefined): SchcpBookingAttachment | undefined {
  const a = schcpOffer(attachments) as Partial<SchcpBookingAttachment> | undefined;
  return a !== undefined && typeof a.receipt === "string" ? (a as SchcpBookingAttachment) : undefined;
}
