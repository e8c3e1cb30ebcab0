/**
 * POST /bookings/{id}/meeting/withdraw (SchCP §5.12 Changing a confirmed meeting, scope
 * reschedule): the organizer withdraws a pending revision on this calendar, in its own words.
 * The booking keeps its time and contract, declined_change records the revision with refusal
 * DECLINED organizer_withdrew (../../../booking/meetings/revise-confirmed.ts). A hash that is
 * not the pending revision's is 409 CONTRACT_MISMATCH.
 */
import type { BookingDeps, UseCase } from "../../../booking/api.js";
import { withdrawRevision } from "../../../booking/meetings/revise-confirmed.js";
import { ok } from "../../../protocol/result.js";
import type { BookingResponse, MeetingWithdrawRequest } from "../../../protocol/schcp/types.js";
import { authorizeOnBooking, bookingAction } from "../access.js";
import { schcpHostBooking } from "../booking.js";
import type { SchcpCaller } from "../caller.js";
import { bookingResponse } from "../receipt.js";

export async function withdrawBookingRevision(
  deps: BookingDeps,
  hostId: string,
  caller: SchcpCaller,
  bookingId: string,
  body: MeetingWithdrawRequest,
): UseCase<BookingResponse> {
  const found = await schcpHostBooking(deps, hostId, bookingId);
  if (!found.ok) return found;
  const { host, loaded } = found.value;
  const allowed = await authorizeOnBooking(
    deps.store,
    caller,
    loaded.state,
    bookingAction("reschedule", loaded.state),
  );
  if (!allowed.ok) return allowed;
  const dropped = await withdrawRevision(deps, hostId, bookingId, body.contract_sha256, body.reason);
  return dropped.ok ? ok(bookingResponse(dropped.value, host)) : dropped;
}
