/**
 * The BookingIndex (api.ts) over the hold store's own indexes. The store writes a booking and
 * its index entries in one atomic step (completeConfirm, updateBookingPayload: one Lua script
 * in Redis, one synchronous step in memory), so a process killed at any point never leaves a
 * booking that the operator list cannot see, or lists it under a status it no longer has.
 */
import type { BookingIndex } from "../api.js";
import type { HoldStore } from "../../holds/port.js";
import { ensureBookingIndex } from "./index-entry.js";

export function storeBookingIndex(
  store: Pick<HoldStore, "listBookings" | "backfillBookingIndex">,
): BookingIndex {
  return {
    page: async (hostId, query) => {
      await ensureBookingIndex(store, hostId);
      return store.listBookings(hostId, query);
    },
  };
}
