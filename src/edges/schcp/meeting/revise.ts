/**
 * POST /bookings/{id}/meeting (SchCP §5.12 Revisions, scope reschedule): the organizer hands
 * this calendar a revised contract. The contract is checked as on confirm (contract.ts)
 * against the booking's current offer, then the core's revision checks and adoption
 * (../../../booking/meetings/revise.ts). Answered as the BookingResponse with the contract.
 */
import type { BookingDeps, UseCase } from "../../../booking/api.js";
import { reviseMeeting, revisionRefusal } from "../../../booking/meetings/revise.js";
import { err, ok } from "../../../protocol/result.js";
import type { BookingResponse, MeetingRevisionRequest } from "../../../protocol/schcp/types.js";
import { authorizeOnBooking, bookingAction } from "../access.js";
import { schcpHostBooking } from "../booking.js";
import type { SchcpCaller } from "../caller.js";
import { bookingResponse } from "../receipt.js";
import { checkMeetingContract } from "./contract.js";

export async function reviseBooking(
  deps: BookingDeps,
  hostId: string,
  caller: SchcpCaller,
  bookingId: string,
  body: MeetingRevisionRequest,
): UseCase<BookingResponse> {
  const found = await schcpHostBooking(deps, hostId, bookingId);
  if (!found.ok) return found;
  const { host, loaded, signed } = found.value;
  const state = loaded.state;
  const allowed = await authorizeOnBooking(deps.store, caller, state, bookingAction("reschedule", state));
  if (!allowed.ok) return allowed;
  const terms = await checkMeetingContract(
    host,
    allowed.value.principal,
    { contract: state.contract, signed },
    { idempotency_key: body.idempotency_key, offer_sha256: signed.offerSha256, meeting: body.contract },
    deps.clock.now(),
  );
  if (!terms.ok) return terms;
  const refused = revisionRefusal(state, body.sequence, terms.value);
  if (refused !== undefined) return err(refused);
  const revised = await reviseMeeting(deps, hostId, bookingId, body.sequence, terms.value);
  return revised.ok ? ok(bookingResponse(revised.value, host)) : revised;
}
