/**
 * The booking behind an approval link. A link is issued when the host's calendar event is
 * written (the confirm's upstream create, before the booking record exists), so it names the
 * event — the booking's upstream id — and the booking is found from it when the host opens
 * the link, through the store's key index (written with every booking payload, so the oldest
 * booking is found as fast as the newest).
 */
import type { HoldStore } from "../../holds/port.js";
import { ensureBookingIndex, upstreamLookupKey } from "../bookings/index-entry.js";
import { loadBooking, type LoadedBooking } from "../bookings/store.js";

export async function bookingForUpstreamId(
  store: HoldStore,
  hostId: string,
  upstreamId: string,
): Promise<LoadedBooking | undefined> {
  await ensureBookingIndex(store, hostId);
  const id = await store.bookingIdByKey(hostId, upstreamLookupKey(upstreamId));
  if (id === undefined) return undefined;
  const loaded = await loadBooking(store, hostId, id);
  // The key follows the payload; checked anyway, so a stale entry can never name another booking.
  return loaded?.state.upstreamId === upstreamId ? loaded : undefined;
}
