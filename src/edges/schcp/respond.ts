/**
 * POST /bookings/{booking_id}/respond (SchCP §5.10 "Answering"): a required participant, or
 * the booker reconfirming, answers under their own mandate (any scope; its constraints still
 * apply, max_price against the stated total and a closed mandate's offer_sha256 included). The
 * hash MUST be the booking's current offer_sha256 (409 CONTRACT_MISMATCH otherwise). Then the
 * core's answer (../../booking/participants/respond.ts), answered as the BookingResponse.
 */
import type { SchcpCaller } from "./caller.js";
import type { BookingDeps, UseCase } from "../../booking/api.js";
import { err, ok } from "../../protocol/result.js";
import { checkMandateAction } from "../../protocol/schcp/mandate/index.js";
import type { BookingResponse, RespondRequest } from "../../protocol/schcp/types.js";
import { contractMismatch, mandateRequired, notFound } from "../../booking/bookings/refuse.js";
import { participantFor } from "../../booking/participants/rules.js";
import { respondAsParticipant } from "../../booking/participants/respond.js";
import { bookingAction, mandateCounter } from "./access.js";
import { schcpHostBooking } from "./booking.js";
import { fromMandateRefusal } from "./mandate-refusal.js";
import { bookingResponse } from "./receipt.js";

export async function respond(
  deps: BookingDeps,
  hostId: string,
  caller: SchcpCaller,
  bookingId: string,
  body: RespondRequest,
): UseCase<BookingResponse> {
  const found = await schcpHostBooking(deps, hostId, bookingId);
  if (!found.ok) return found;
  const { host, loaded, signed } = found.value;
  const state = loaded.state;
  const chain = caller.mandate;
  if (chain === undefined) return err(mandateRequired());
  // The answering mandate's root principal must be a required participant (or the booker for
  // its reconfirmation); anyone else, or a participant who declined, learns nothing (§5.5).
  const me = participantFor(state, chain.principal);
  if (me === undefined || me.status === "declined") return err(notFound("booking"));

  const checked = await checkMandateAction(
    chain,
    { ...bookingAction("respond", state), offerSha256: body.offer_sha256 },
    { counter: mandateCounter(deps.store, hostId) },
  );
  if (!checked.ok) return err(fromMandateRefusal(checked.error));
  if (body.offer_sha256 !== signed.offerSha256)
    return err(
      contractMismatch(signed.offerSha256, "offer_sha256 does not name the booking's current contract"),
    );

  const answered = await respondAsParticipant(deps, hostId, bookingId, chain.principal, body.accept);
  return answered.ok ? ok(bookingResponse(answered.value, host)) : answered;
}
