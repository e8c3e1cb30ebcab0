/**
 * POST /bookings/{id}/meeting (SchCP §5.12 Revisions, scope reschedule): the organizer hands
 * this calendar a revised contract. This calendar's member entry must name the booking's
 * current offer or its open change offer (the organizer's own change offer, or the host's
 * counter, §5.11); the contract is checked as on confirm (contract.ts) against that offer,
 * else 409 CONTRACT_MISMATCH. Then the core's revision checks and adoption: a pending_host or
 * tentative booking moves at once (../../../booking/meetings/revise.ts), a confirmed one keeps
 * the revision pending until every member said yes (revise-confirmed.ts). Answered as the
 * BookingResponse with the contract, and a pending revision's as pending_contract.
 */
import type { BookingDeps, UseCase } from "../../../booking/api.js";
import { reviseMeeting, revisionRefusal } from "../../../booking/meetings/revise.js";
import {
  confirmedRevisionRefusal,
  reviseConfirmedMeeting,
} from "../../../booking/meetings/revise-confirmed.js";
import { err, ok } from "../../../protocol/result.js";
import { receiptConsent } from "../../../protocol/schcp/mandate/index.js";
import type { BookingResponse, MeetingRevisionRequest } from "../../../protocol/schcp/types.js";
import { authorizeOnBooking, bookingAction } from "../access.js";
import { schcpOffer } from "../attachment.js";
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
  const now = deps.clock.now();
  const check = (offer: Parameters<typeof checkMeetingContract>[2], offerSha256: string) =>
    checkMeetingContract(
      host,
      allowed.value.principal,
      offer,
      { idempotency_key: body.idempotency_key, offer_sha256: offerSha256, meeting: body.contract },
      now,
    );
  // The booking's current offer first; where the member names another, its open change offer.
  let terms = await check({ contract: state.contract, signed }, signed.offerSha256);
  const open = state.proposal;
  const openSigned = schcpOffer(open?.attachments);
  let adopt = false;
  if (
    !terms.ok &&
    terms.error.code === "contract_mismatch" &&
    open !== undefined &&
    openSigned !== undefined
  ) {
    const against = await check({ contract: open.contract, signed: openSigned }, openSigned.offerSha256);
    if (against.ok) {
      terms = against;
      adopt = true;
    }
  }
  if (!terms.ok) return terms;
  const proposal = adopt ? open : undefined;
  if (state.status === "confirmed") {
    const refused = confirmedRevisionRefusal(state, body.sequence, terms.value, now);
    if (refused !== undefined) return err(refused);
    const revised = await reviseConfirmedMeeting(
      deps,
      hostId,
      bookingId,
      body.sequence,
      terms.value,
      proposal,
    );
    return revised.ok ? ok(bookingResponse(revised.value, host)) : revised;
  }
  const refused = revisionRefusal(state, body.sequence, terms.value);
  if (refused !== undefined) return err(refused);
  const revised = await reviseMeeting(
    deps,
    hostId,
    bookingId,
    body.sequence,
    terms.value,
    proposal !== undefined && openSigned !== undefined
      ? {
          proposal,
          consent: { ...receiptConsent(allowed.value, openSigned.offerSha256), approved: "contract" },
        }
      : undefined,
  );
  return revised.ok ? ok(bookingResponse(revised.value, host)) : revised;
}
