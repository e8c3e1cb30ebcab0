/** The operator's list of a host's bookings, newest first (through the BookingIndex, api.ts). */
import type { BookingDeps, UseCase } from "../api.js";
import { err, ok } from "../../protocol/result.js";
import { bookingView, type BookingView } from "../view.js";
import { notFound } from "../bookings/refuse.js";
import { loadBooking } from "../bookings/store.js";

const LIST_LIMIT = 500;

export async function listBookings(deps: BookingDeps, hostId: string): UseCase<readonly BookingView[]> {
  const host = deps.hosts.get(hostId);
  if (host === undefined) return err(notFound("host"));
  const ids = (await deps.bookingIndex?.list(hostId, LIST_LIMIT)) ?? [];
  const out: BookingView[] = [];
  for (const id of ids) {
    const loaded = await loadBooking(deps.store, hostId, id);
    if (loaded !== undefined) out.push(bookingView(loaded.state));
  }
  return ok(out);
}
