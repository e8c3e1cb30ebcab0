/**
 * The booking behind an approval link. A link is issued when the host's calendar event is
 * written (the confirm's upstream create, before the booking record exists), so it names the
 * event — the booking's upstream id — and the booking is found from it when the host opens
 * the link. A scan of the host's booking index: a link is opened once or twice per booking, so
 * a lookup index is not worth its write on every booking (noted on issue #11).
 */
import type { HoldStore } from "../../holds/port.js";
import { loadBooking, type LoadedBooking } from "../bookings/store.js";

const SCAN_LIMIT = 10_000;

export async function bookingForUpstreamId(
  store: HoldStore,
  hostId: string,
  upstreamId: string,
): Promise<LoadedBooking | undefined> {
  const ids = await store.listBookingIds(hostId, SCAN_LIMIT);
  for (const id of ids) {
    const loaded = await loadBooking(store, hostId, id);
    if (loaded?.state.upstreamId === upstreamId) return loaded;
  }
  return undefined;
}
