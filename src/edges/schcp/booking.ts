/**
 * A booking as the SchCP use cases reach it: the host in the path and its booking, which must
 * stand on a SchCP offer. One made through another edge (OSBP) has none, and is not found
 * here, as any booking the caller cannot see (§9.2).
 */
import type { BookingDeps, BookingRefusal, HostRuntime } from "../../booking/api.js";
import { err, ok, type Result } from "../../protocol/result.js";
import { notFound } from "../../booking/bookings/refuse.js";
import { hostBooking, type LoadedBooking } from "../../booking/bookings/store.js";
import { schcpBooking, type SchcpBookingAttachment } from "./attachment.js";

export interface SchcpBooking {
  readonly host: HostRuntime;
  readonly loaded: LoadedBooking;
  readonly signed: SchcpBookingAttachment;
}

export async function schcpHostBooking(
  deps: BookingDeps,
  hostId: string,
  bookingId: string,
): Promise<Result<SchcpBooking, BookingRefusal>> {
  const found = await hostBooking(deps, hostId, bookingId);
  if (!found.ok) return found;
  const signed = schcpBooking(found.value.loaded.state.attachments);
  if (signed === undefined) return err(notFound("booking"));
  return ok({ ...found.value, signed });
}
