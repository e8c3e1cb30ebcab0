/** The SchCP edge of the core: wire bodies in and out, the signed offer, receipts, webhooks. */
export type { SchcpHostApi } from "./api.js";
export { schcpHostApi } from "./host-api.js";
export { schcpEdge } from "./edge.js";
export {
  SCHCP,
  schcpBooking,
  schcpHold,
  schcpOffer,
  type SchcpBookingAttachment,
  type SchcpHoldAttachment,
  type SchcpOffer,
} from "./attachment.js";
export { bookingResponse, issueReceipt, receiptClaims } from "./receipt.js";
export { buildBooking, buildEvent, buildProposal, placeLine } from "./wire.js";
export { bookingEvent } from "./webhook.js";
export { holdView } from "./holds.js";
export { offerClaims, oneLineAddress, signOfferOnce, wireHold } from "./offer.js";
export type { ConfirmResult } from "./confirm.js";
