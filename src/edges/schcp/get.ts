/**
 * GET /bookings/{booking_id} (SchCP §5.5): the booking as it stands, for the principal that
 * owns it, under any scope; the mandate's constraints bind the read (§3.3).
 */
import type { SchcpCaller } from "./caller.js";
import type { BookingDeps, UseCase } from "../../booking/api.js";
import { ok } from "../../protocol/result.js";
import type { BookingResponse } from "../../protocol/schcp/types.js";
import { authorizeOnBooking, bookingAction } from "./access.js";
import { schcpHostBooking } from "./booking.js";
import { bookingResponse } from "./receipt.js";

export async function getBooking(
  deps: BookingDeps,
  hostId: string,
  caller: SchcpCaller,
  bookingId: string,
): UseCase<BookingResponse> {
  const found = await schcpHostBooking(deps, hostId, bookingId);
  if (!found.ok) return found;
  const { host, loaded } = found.value;
  const allowed = await authorizeOnBooking(
    deps.store,
    caller,
    loaded.state,
    bookingAction("read", loaded.state),
  );
  if (!allowed.ok) return allowed;
  return ok(bookingResponse(loaded.state, host));
}
