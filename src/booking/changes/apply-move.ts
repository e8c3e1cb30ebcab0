/**
 * The atomic swap of an accepted change (SchCP §5.7 step 2, §5.8, §5.11): the booking takes
 * the change offer's held time and contract, its old time is freed, sequence + 1, and each
 * edge's record is renewed (SchCP signs a new receipt). "A failure leaves the original booking intact": the upstream moves
 * first (slot_taken there refuses with nothing changed here); the local swap is then one
 * store transaction (moveBookingToHold), and should it fail, the upstream is moved back.
 */
import { offerFreedTime } from "../waitlist/offer.js";
import type { BookingDeps, BookingRefusal, HostRuntime } from "../api.js";
import { err, ok } from "../../protocol/result.js";
import type { Result } from "../../protocol/result.js";
import { invalidState, refuse, upstreamRefusal } from "../bookings/refuse.js";
import type { BookingState, StoredProposal } from "../bookings/state.js";
import type { Consent } from "../contract.js";
import { saveBooking } from "../bookings/store.js";
import { hasRequiredParticipants, reask } from "../participants/rules.js";

/**
 * §5.10 "Changes re-ask": a change to a start that has already passed would leave the
 * participants no time to answer, so asking for it or accepting it is refused.
 */
export function tooSoonForParticipants(
  state: BookingState,
  newStart: number,
  now: number,
): BookingRefusal | undefined {
  if (!hasRequiredParticipants(state) || newStart > now) return undefined;
  return refuse(
    "outside_booking_window",
    "too_soon",
    "the new start has passed: the booking's participants would have no time to answer",
  );
}

/** Anything else the accepting use case changes with the move (a counter's status and answer). */
export type MoveExtras = (s: BookingState) => Partial<BookingState>;

export async function applyMove(
  deps: BookingDeps,
  host: HostRuntime,
  state: BookingState,
  proposal: StoredProposal,
  consent: Consent,
  extras: MoveExtras = () => ({}),
  /** The moved state as the accepting use case finishes it (a meeting revision, §5.12). */
  finish: (moved: BookingState) => BookingState = (moved) => moved,
): Promise<Result<BookingState, BookingRefusal>> {
  const hostId = host.config.id;
  const now = deps.clock.now();
  const tooSoon = tooSoonForParticipants(state, proposal.start, now);
  if (tooSoon !== undefined) return err(tooSoon);
  const hold = await deps.store.getHold(hostId, proposal.holdId, now);
  if (hold?.state !== "held")
    return err(invalidState("the change offer is no longer held; ask for a new one"));
  const resourceIds = hold.allocations.map((a) => a.resourceId);

  const moved = await host.connector.bookings.move(state.upstreamId, {
    start: proposal.start,
    ...(proposal.end !== undefined && { end: proposal.end }),
    resourceIds,
  });
  if (!moved.ok) {
    if (moved.error.code !== "slot_taken") return err(upstreamRefusal(moved.error));
    await deps.store.releaseHold(hostId, proposal.holdId, now);
    await saveBooking(deps, host, state.bookingId, (s) => ok(withoutProposal(s, proposal.proposalId)), now);
    return err(
      refuse("slot_unavailable", "slot_taken", "the new time was taken at the host's booking system"),
    );
  }

  // §5.9: the time the booking moves away from goes to the waitlist first, in the same step.
  const swapped = await offerFreedTime(
    deps,
    host,
    { kind: "move", bookingId: state.bookingId, holdId: proposal.holdId },
    { start: state.start },
    deps.clock.now(),
  );
  if (!swapped.ok) {
    // Put the upstream back where the booking still is locally; a failure here is for the
    // host's own reconciliation of its calendar, the local booking is intact either way.
    await host.connector.bookings.move(state.upstreamId, {
      start: state.start,
      ...(state.end !== undefined && { end: state.end }),
      resourceIds: state.resourceIds,
    });
    return err(
      invalidState(`the change could not be applied (${swapped.error.reason}); ask for a new offer`),
    );
  }

  return saveBooking(
    deps,
    host,
    state.bookingId,
    (s) => {
      const { proposal: _p, declinedChange: _d, end: _e, ...rest } = s;
      // §5.10: each required participant is asked again, with a fresh deadline from the new
      // start, and the booking is tentative until they have; the booker's reconfirmation is
      // recomputed from the new start.
      const participants = reask(
        s,
        proposal.contract,
        proposal.start,
        host.config.policies.tentative?.maxConfirmWithinMs,
        deps.clock.now(),
      );
      const extra = extras(s);
      // A pending booking the move answers (a counter accepted, §5.11) has no deadline left.
      const settled = s.status === "pending_host" && extra.status !== undefined && extra.status !== s.status;
      if (settled) {
        delete (rest as { approvalBy?: number }).approvalBy;
        delete (rest as { awaitingUpstream?: true }).awaitingUpstream;
      }
      const after = extra.status ?? s.status;
      const reasked = hasRequiredParticipants(s) && (after === "confirmed" || after === "tentative");
      return ok(
        finish({
          ...rest,
          start: proposal.start,
          ...(proposal.end !== undefined && { end: proposal.end }),
          ...(proposal.place !== undefined && { place: proposal.place }),
          resourceIds,
          // §5.7: the change offer becomes the booking's contract; its total and lines with it,
          // and each edge's record of it (SchCP: the signed change offer) the booking's.
          contract: proposal.contract,
          ...(proposal.attachments !== undefined && {
            attachments: { ...s.attachments, ...proposal.attachments },
          }),
          consent,
          sequence: s.sequence + 1,
          ...extra,
          ...(participants !== undefined && { participants }),
          ...(reasked && { status: "tentative" as const }),
        }),
      );
    },
    deps.clock.now(),
  );
}

/** The state without the named proposal (unchanged when another one is open by now). */
export function withoutProposal(s: BookingState, proposalId: string): BookingState {
  if (s.proposal?.proposalId !== proposalId) return s;
  const { proposal: _p, ...rest } = s;
  return rest;
}
