/** Booking state, its wire shape and receipts, GET and cancel (SchCP §5.3, §5.5, §5.6). */
export type { BookingState, Contract, StoredProposal } from "./state.js";
export { ACTIVE_STATUSES, decodeBookingState, encodeBookingState } from "./state.js";
export { buildBooking, buildEvent, buildProposal, placeLine } from "./wire.js";
export { bookingResponse, issueReceipt, receiptClaims, withReceipt } from "./receipt.js";
export { loadBooking, saveBooking } from "./store.js";
export type { BookingChange, LoadedBooking } from "./store.js";
export { bookingEvent, notifyGuest } from "./webhook.js";
export { storeBookingIndex } from "./booking-index.js";
export { getBooking } from "./get.js";
export { cancelBooking } from "./cancel.js";
