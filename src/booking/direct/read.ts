/**
 * readDirectBooking: a booking as the core keeps it, with the upstream's answer read fresh
 * (OSBP booking.status "claims current platform state"). The core's record says whose it is and
 * whether the host has decided; the platform says what became of it since.
 */
import type { UpstreamBooking } from "../upstream.js";
import { err, ok } from "../../protocol/result.js";
import type { BookingDeps, UseCase } from "../api.js";
import { upstreamRefusal } from "../bookings/refuse.js";
import type { BookingState } from "../bookings/state.js";
import { hostBooking } from "../bookings/store.js";

export interface ReadBooking {
  readonly state: BookingState;
  readonly upstream: UpstreamBooking;
}

export async function readDirectBooking(
  deps: BookingDeps,
  hostId: string,
  bookingId: string,
): UseCase<ReadBooking> {
  const found = await hostBooking(deps, hostId, bookingId);
  if (!found.ok) return found;
  const { host, loaded } = found.value;
  const upstream = await host.connector.bookings.get(loaded.state.upstreamId);
  if (!upstream.ok) return err(upstreamRefusal(upstream.error));
  return ok({ state: loaded.state, upstream: upstream.value });
}
