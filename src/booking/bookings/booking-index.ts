/**
 * The BookingIndex (api.ts) over the hold store's own index. The store writes a booking and
 * its index entry in one atomic step (completeConfirm: one Lua script in Redis, one
 * synchronous step in memory), so a process killed at any point of a confirm never leaves a
 * booking that the operator list and the approval-deadline runner cannot see.
 */
import type { BookingIndex } from "../api.js";
import type { HoldStore } from "../../holds/port.js";

export function storeBookingIndex(store: Pick<HoldStore, "listBookingIds">): BookingIndex {
  return { list: (hostId, limit) => store.listBookingIds(hostId, limit) };
}
