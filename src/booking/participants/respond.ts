/**
 * A participant's answer (SchCP §5.10 "Answering"), for every edge that carries one (SchCP
 * POST /bookings/{id}/respond, ../../edges/schcp/respond.ts): the edge has checked the
 * participant's own mandate and that the hash names the booking's current contract.
 *
 * - Accepting: the participant is accepted; from the last required participant a tentative
 *   booking becomes confirmed (sequence + 1) and its booker earns the "confirmed" outcome it
 *   did not earn while tentative (§5.10 Locks). The booker's reconfirmation is accepted the
 *   same way and leaves the booking confirmed as it was.
 * - Declining: the booking is declined (DECLINED participant_declined), its time freed through
 *   the one ending every booking takes (bookings/cancel.ts endBooking), and the booker's agent,
 *   principal and attester count it like a released hold (§7.3). The booker backs out by
 *   cancelling (§5.10), not by declining its own reconfirmation.
 *
 * The booker hears every answer as booking.response, and the status change as usual (§5.8).
 */
import type { BookingDeps, BookingRefusal, HostRuntime, UseCase } from "../api.js";
import { err, ok } from "../../protocol/result.js";
import type { Result } from "../../protocol/result.js";
import type { HoldOwner, ReputationOutcome } from "../../holds/port.js";
import { endBooking } from "../bookings/cancel.js";
import { notifyGuest } from "../bookings/edges.js";
import { invalidState, notFound, refuse } from "../bookings/refuse.js";
import type { BookingEnding, BookingState } from "../bookings/state.js";
import { ACTIVE_STATUSES } from "../bookings/state.js";
import { hostBooking, saveBooking } from "../bookings/store.js";
import { awaitedAnswers, participantFor, replaceParticipant } from "./rules.js";

const participantDeclined = (): BookingEnding => ({
  kind: "declined",
  reason: "participant_declined",
  message: "a participant declined the booking",
});

/**
 * Whether `who` may read the booking as a participant (§5.5): a required participant who has
 * not declined ("A participant who declined can no longer read the booking").
 */
export function readsAsParticipant(state: BookingState, who: string): boolean {
  return (state.participants ?? []).some(
    (p) => p.who === who && p.role !== "booker" && p.status !== "declined" && p.status !== "not_required",
  );
}

/** Records `outcome` for the booking's agent, principal and attester (§7.3, §7.5). */
export async function recordBookerOutcome(
  deps: Pick<BookingDeps, "store">,
  owner: HoldOwner,
  principal: string,
  outcome: ReputationOutcome,
  now: number,
): Promise<void> {
  await deps.store.recordOutcome({ kind: "agent", id: owner.agentKey }, outcome, now);
  await deps.store.recordOutcome({ kind: "principal", id: principal }, outcome, now);
  if (owner.attester !== undefined)
    await deps.store.recordOutcome({ kind: "attester", id: owner.attester }, outcome, now);
}

/** The participant's answer applied to the stored state (pure; retried on a concurrent write). */
function accepted(s: BookingState, who: string): Result<BookingState, BookingRefusal> {
  const p = participantFor(s, who);
  if (p === undefined || p.status === "declined") return err(notFound("booking"));
  if (!ACTIVE_STATUSES.has(s.status)) return err(invalidState(`the booking is ${s.status}`));
  if (p.status === "accepted") return ok(s);
  const participants = replaceParticipant(s.participants ?? [], p, {
    ...withoutDeadline(p),
    status: "accepted",
  });
  if (s.status === "tentative" && awaitedAnswers(participants).length === 0) {
    const { creditPending: _c, ...rest } = s;
    return ok({ ...rest, participants, status: "confirmed", sequence: s.sequence + 1 });
  }
  return ok({ ...s, participants });
}

function withoutDeadline<T extends { confirmBy?: number }>(p: T): Omit<T, "confirmBy"> {
  const { confirmBy: _c, ...rest } = p;
  return rest;
}

/**
 * `who` (the root principal of the answering mandate) answers the booking. Not a participant,
 * or one who declined: NOT_FOUND, so nothing about the booking leaks (§5.5, §9.2).
 */
export async function respondAsParticipant(
  deps: BookingDeps,
  hostId: string,
  bookingId: string,
  who: string,
  accept: boolean,
): UseCase<BookingState> {
  const found = await hostBooking(deps, hostId, bookingId);
  if (!found.ok) return found;
  const { host, loaded } = found.value;
  const state = loaded.state;
  const p = participantFor(state, who);
  if (p === undefined || p.status === "declined") return err(notFound("booking"));
  if (!ACTIVE_STATUSES.has(state.status)) return err(invalidState(`the booking is ${state.status}`));
  const now = deps.clock.now();

  if (accept) {
    // Accepting again answers the booking as it stands.
    if (p.status === "accepted") return ok(state);
    const saved = await saveBooking(deps, host, bookingId, (s) => accepted(s, who), now);
    if (!saved.ok) return saved;
    await notifyGuest(deps, host, saved.value, "response", now);
    if (state.status === "tentative" && saved.value.status === "confirmed") {
      // §5.10 Locks: final now, so the booker earns the credit it did not while tentative.
      if (state.creditPending === true)
        await recordBookerOutcome(deps, loaded.record.owner, state.principal, "confirmed", now);
      await notifyGuest(deps, host, saved.value, "confirmed", now);
    }
    return saved;
  }

  if (p.role === "booker")
    return err(
      refuse("invalid_request", "invalid_request", "the booker backs out by cancelling the booking (§5.6)"),
    );
  return declineAsParticipant(deps, host, state, loaded.record.owner, who, now);
}

async function declineAsParticipant(
  deps: BookingDeps,
  host: HostRuntime,
  state: BookingState,
  owner: HoldOwner,
  who: string,
  now: number,
): UseCase<BookingState> {
  const refusal = participantDeclined();
  const saved = await endBooking(deps, host, state, refusal.message, "system", now, (s) => {
    const p = participantFor(s, who);
    if (p === undefined || !ACTIVE_STATUSES.has(s.status)) return undefined;
    return {
      ...s,
      status: "declined",
      refusal,
      participants: replaceParticipant(s.participants ?? [], p, {
        ...withoutDeadline(p),
        status: "declined",
      }),
    };
  });
  if (!saved.ok) return saved;
  if (saved.value.status !== "declined") return saved;
  // §5.10 Locks: "A decline counts like a released hold".
  await recordBookerOutcome(deps, owner, state.principal, "released", now);
  await notifyGuest(deps, host, saved.value, "response", now);
  await notifyGuest(deps, host, saved.value, "declined", now, { refusal });
  return saved;
}
