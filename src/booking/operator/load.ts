/**
 * The operator side's access to a booking: the host's own credential was checked at the edge
 * (never an agent signature), so only the host and booking need to exist.
 */
import type { BookingDeps, BookingRefusal, HostRuntime } from "../api.js";
import { err, ok } from "../../protocol/result.js";
import type { Result } from "../../protocol/result.js";
import { refusal } from "../../protocol/schcp/refusals.js";
import type { RefusalError } from "../../protocol/schcp/types.js";
import { notFound } from "../bookings/refuse.js";
import type { LoadedBooking } from "../bookings/store.js";
import { loadBooking } from "../bookings/store.js";

export async function hostBooking(
  deps: BookingDeps,
  hostId: string,
  bookingId: string,
): Promise<Result<{ host: HostRuntime; loaded: LoadedBooking }, BookingRefusal>> {
  const host = deps.hosts.get(hostId);
  if (host === undefined) return err(notFound("host"));
  const loaded = await loadBooking(deps.store, hostId, bookingId);
  if (loaded === undefined) return err(notFound("booking"));
  return ok({ host, loaded });
}

/** §9.2 booking refusals (DECLINED, EXPIRED, CANCELLED), through the registry. */
export const declinedRefusal = (reason?: string, message?: string): RefusalError =>
  refusal("DECLINED", {
    // host_declined:* carries a host-specific suffix (§5.7) when the host gave a usable one.
    reason:
      reason !== undefined && /^[A-Za-z0-9_.-]+$/.test(reason) ? `host_declined:${reason}` : "host_declined",
    ...(message !== undefined && { message }),
  }).body.error;

export const expiredRefusal = (): RefusalError =>
  refusal("EXPIRED", { reason: "host_did_not_answer", message: "the host did not answer in time" }).body
    .error;

export const cancelledRefusal = (message?: string): RefusalError =>
  refusal("CANCELLED", { reason: "host_cancelled", ...(message !== undefined && { message }) }).body.error;
