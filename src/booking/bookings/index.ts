/** Booking state, its store, the edge hooks' core side, and ending a booking (§5.6, §6). */
export type { BookingState, StoredOfferTerms, StoredProposal } from "./state.js";
export { ACTIVE_STATUSES, contractFromClaims, decodeBookingState, encodeBookingState } from "./state.js";
export { loadBooking, saveBooking } from "./store.js";
export type { BookingChange, LoadedBooking } from "./store.js";
export { edgesOf, holdAttachments, notifyGuest, withEdgeRecords } from "./edges.js";
export { storeBookingIndex } from "./booking-index.js";
export { bookingIndexEntry, ensureBookingIndex, upstreamLookupKey } from "./index-entry.js";
export { canCancel, endBooking } from "./cancel.js";
