/**
 * The host says yes (SchCP §6, §5.7 step 3, §7.9): a pending_host booking becomes confirmed
 * with answer by the host and a booking.confirmed webhook; or a guest's move awaiting the host
 * is made atomically (sequence + 1) and the guest gets booking.change_approved. Approving a
 * pending booking changes nothing the guest agreed to, so its sequence stays (§6 marks no
 * sequence bump for approve).
 *
 * A booking the upstream itself holds for the business (awaitingUpstream) is answered at the
 * upstream by the business; when the platform cannot be told or asked (Servicialo v1.2.0 has
 * no status write or session read), the operator's approve records the business's yes that
 * was given there (docs/connectors.md "Pending at the business").
 */
import type { BookingDeps, UseCase } from "../api.js";
import { err, ok } from "../../protocol/result.js";
import { bookingView, type BookingView } from "../view.js";
import { invalidState, upstreamRefusal } from "../bookings/refuse.js";
import { saveBooking } from "../bookings/store.js";
import { notifyGuest } from "../bookings/edges.js";
import { applyMove, withoutProposal } from "../changes/apply-move.js";
import type { StoredProposal } from "../bookings/state.js";
import { hostBooking } from "../bookings/store.js";
import { bookerReconfirm, finalityStatus } from "../participants/rules.js";
import { recordBookerOutcome } from "../participants/respond.js";
import { hostAnswer } from "../answers/decide.js";

export async function approveBooking(
  deps: BookingDeps,
  hostId: string,
  bookingId: string,
): UseCase<BookingView> {
  const found = await hostBooking(deps, hostId, bookingId);
  if (!found.ok) return found;
  const { host, loaded } = found.value;
  const state = loaded.state;
  const now = deps.clock.now();
  // §7.9: by "host" at a business, by "person" at a person's calendar (§7.7).
  const answer = hostAnswer(host, now);

  const waiting = state.proposal?.awaitingHost === true ? state.proposal : undefined;
  if (state.status === "confirmed" && waiting !== undefined) {
    const moved = await applyMove(deps, host, state, waiting, waiting.consent ?? state.consent, () => ({
      answer,
    }));
    if (!moved.ok) return moved;
    await notifyGuest(deps, host, moved.value, "change_approved", deps.clock.now());
    return ok(bookingView(moved.value, deps.clock.now()));
  }
  if (state.status !== "pending_host")
    return err(invalidState(`a ${state.status} booking has nothing to approve`));

  const upstream = await host.connector.bookings.setStatus(state.upstreamId, "confirmed");
  const recordedOnly =
    state.awaitingUpstream === true && !upstream.ok && upstream.error.code === "unsupported";
  if (!upstream.ok && !recordedOnly) return err(upstreamRefusal(upstream.error));
  // §5.11: a counter is the host's answer "instead of yes or no"; saying yes to the original
  // terms withdraws it, so an open counter (a proposal by the host) is cleared with the approval
  // and its held time released once the booking no longer names it.
  let counter: StoredProposal | undefined;
  const saved = await saveBooking(
    deps,
    host,
    bookingId,
    (s) => {
      if (s.status === "confirmed") return ok(s);
      if (s.status !== "pending_host")
        return err(invalidState(`a ${s.status} booking has nothing to approve`));
      const { approvalBy: _a, awaitingUpstream: _u, creditPending: _c, ...rest } = s;
      counter = s.proposal?.by === "host" ? s.proposal : undefined;
      // §5.10: confirmed if every required participant has accepted, tentative otherwise;
      // the booker's reconfirmation runs "from the moment it approves".
      const reconfirm = bookerReconfirm(s.contract, s.principal, s.start, now);
      const participants = [...(s.participants ?? []), ...(reconfirm === undefined ? [] : [reconfirm])];
      const status = finalityStatus(participants);
      const next = {
        ...rest,
        status,
        answer,
        ...(participants.length > 0 && { participants }),
        ...(status === "tentative" && { creditPending: true as const }),
      };
      return ok(counter === undefined ? next : withoutProposal(next, counter.proposalId));
    },
    now,
  );
  if (!saved.ok) return saved;
  const withdrawn: StoredProposal | undefined = counter;
  if (withdrawn !== undefined) await deps.store.releaseHold(host.config.id, withdrawn.holdId, now);
  // §5.10 Locks: a booking that waited on its participants earns its credit once final; a
  // tentative one keeps waiting (participants/respond.ts).
  if (saved.value.status === "confirmed") {
    if (state.creditPending === true)
      await recordBookerOutcome(deps, loaded.record.owner, state.principal, "confirmed", now);
    await notifyGuest(deps, host, saved.value, "confirmed", now);
  }
  return ok(bookingView(saved.value, deps.clock.now()));
}
