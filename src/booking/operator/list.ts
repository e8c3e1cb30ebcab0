/** The operator's list of a host's bookings, newest first (through the BookingIndex, api.ts). */
import type { BookingDeps, UseCase } from "../api.js";
import { err, ok } from "../../protocol/result.js";
import type { BookingResponse } from "../../protocol/schcp/types.js";
import { bookingResponse } from "../bookings/receipt.js";
import { notFound } from "../bookings/refuse.js";
import { loadBooking } from "../bookings/store.js";

const LIST_LIMIT = 500;

export async function listBookings(deps: BookingDeps, hostId: string): UseCase<readonly BookingResponse[]> {
  const host = deps.hosts.get(hostId);
  if (host === undefined) return err(notFound("host"));
  const ids = (await deps.bookingIndex?.list(hostId, LIST_LIMIT)) ?? [];
  const out: BookingResponse[] = [];
  for (const id of ids) {
    const loaded = await loadBooking(deps.store, hostId, id);
    if (loaded !== undefined) out.push(bookingResponse(loaded.state, host));
  }
  return ok(out);
}
