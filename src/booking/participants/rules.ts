/**
 * Participants and reconfirmation (SchCP §5.10), the pure rules: who must answer, by when, and
 * what the booking's status is while they have not. No I/O: the use cases (respond.ts,
 * deadlines.ts, confirm/record-booking.ts, changes/apply-move.ts, operator/approve.ts) apply
 * them to a booking's state.
 */
import type { BookingContract } from "../contract.js";
import type { BookingState, BookingStatus, StoredParticipant } from "../bookings/state.js";

/** A participant as a confirm names them (an edge's request, in the core's terms). */
export interface ParticipantRequest {
  /** A principal id: a required participant, who must accept with their own mandate. */
  readonly who?: string;
  readonly name?: string;
  readonly role: "attendee" | "invitee";
  readonly relationship?: string;
  readonly confirmWithinMs?: number;
  readonly default?: "release" | "keep";
}

/**
 * §5.10: "now plus the shorter of confirm_within and the host's policies.tentative
 * .max_confirm_within, or the booking's start if that comes first".
 */
export function confirmByOf(
  confirmWithinMs: number | undefined,
  maxConfirmWithinMs: number,
  start: number,
  now: number,
): number {
  const within = Math.min(confirmWithinMs ?? maxConfirmWithinMs, maxConfirmWithinMs);
  return Math.min(now + within, start);
}

/** Required participants and named-only ones, as the booking keeps them. */
export function initialParticipants(
  requests: readonly ParticipantRequest[],
  maxConfirmWithinMs: number,
  start: number,
  now: number,
): StoredParticipant[] {
  return requests.map((r) => {
    const common = {
      ...(r.name !== undefined && { name: r.name }),
      role: r.role,
      ...(r.relationship !== undefined && { relationship: r.relationship }),
      default: r.default ?? ("release" as const),
    };
    if (r.who === undefined) return { ...common, status: "not_required" as const };
    return {
      who: r.who,
      ...common,
      ...(r.confirmWithinMs !== undefined && { confirmWithinMs: r.confirmWithinMs }),
      confirmBy: confirmByOf(r.confirmWithinMs, maxConfirmWithinMs, start, now),
      status: "pending" as const,
    };
  });
}

/** Whether any participant must answer (a `who`): the host then needs policies.tentative. */
export const hasRequired = (requests: readonly ParticipantRequest[] | undefined): boolean =>
  (requests ?? []).some((r) => r.who !== undefined);

/**
 * §5.10 reconfirmation: the booker as a required participant (role "booker") with confirm_by
 * at start minus before, "when that is still in the future". Undefined when the contract
 * states no reconfirmation or the time has already come.
 */
export function bookerReconfirm(
  contract: BookingContract,
  principal: string,
  start: number,
  now: number,
): StoredParticipant | undefined {
  const r = contract.reconfirm;
  if (r === undefined) return undefined;
  const due = start - r.beforeMs;
  if (due <= now) return undefined;
  return { who: principal, role: "booker", confirmBy: due, default: r.default, status: "pending" };
}

/**
 * The participants whose answer the booking's finality waits on: required, not the booker
 * (whose reconfirmation leaves the booking confirmed meanwhile), not yet accepted.
 */
export const awaitedAnswers = (participants: readonly StoredParticipant[] | undefined): StoredParticipant[] =>
  (participants ?? []).filter(
    (p) => p.role !== "booker" && p.status === "pending" && p.confirmBy !== undefined,
  );

/** Whether a booking names required participants other than its booker (changes re-ask them). */
export const hasRequiredParticipants = (state: Pick<BookingState, "participants">): boolean =>
  (state.participants ?? []).some((p) => p.role !== "booker" && p.who !== undefined);

/** The status once the host has said yes: tentative while anyone must still answer. */
export const finalityStatus = (participants: readonly StoredParticipant[] | undefined): BookingStatus =>
  awaitedAnswers(participants).length > 0 ? "tentative" : "confirmed";

/** The earliest participant deadline the deadline runner must act on, if any (index-entry.ts). */
export function participantDeadline(state: BookingState): number | undefined {
  const open = (state.participants ?? []).filter((p) => {
    if (p.status !== "pending" || p.confirmBy === undefined) return false;
    if (p.role === "booker") return state.status === "confirmed";
    return state.status === "tentative" || state.status === "pending_host";
  });
  return open.length === 0 ? undefined : Math.min(...open.map((p) => p.confirmBy as number));
}

/** The participant whose deadline has passed and who must be settled first, if any. */
export function dueParticipant(state: BookingState, now: number): StoredParticipant | undefined {
  const at = participantDeadline(state);
  if (at === undefined || at > now) return undefined;
  return (state.participants ?? []).find((p) => p.status === "pending" && p.confirmBy === at);
}

/** The same list with `who`'s entry (of `role` class: booker or not) replaced by `next`. */
export function replaceParticipant(
  participants: readonly StoredParticipant[],
  target: StoredParticipant,
  next: StoredParticipant,
): StoredParticipant[] {
  return participants.map((p) => (p.who === target.who && p.role === target.role ? next : p));
}

/** A pending answer whose deadline passed with default "keep": no longer awaited (§5.10). */
export function keptBySilence(p: StoredParticipant): StoredParticipant {
  const { confirmBy: _c, ...rest } = p;
  return rest;
}

/**
 * §5.10 "Changes re-ask": each required participant pending again with a fresh deadline from
 * the new start; the booker's reconfirmation recomputed from it ("A change recomputes the
 * deadline from the new start"). Named-only participants are unchanged.
 */
export function reask(
  state: BookingState,
  contract: BookingContract,
  newStart: number,
  maxConfirmWithinMs: number | undefined,
  now: number,
): StoredParticipant[] | undefined {
  const out: StoredParticipant[] = [];
  const hadBooker = (state.participants ?? []).some((p) => p.role === "booker");
  for (const p of state.participants ?? []) {
    if (p.status === "not_required") out.push(p);
    else if (p.role === "booker") {
      const again = bookerReconfirm(contract, p.who ?? state.principal, newStart, now);
      if (again !== undefined) out.push(again);
    } else {
      out.push({
        ...p,
        status: "pending",
        confirmBy: confirmByOf(p.confirmWithinMs, maxConfirmWithinMs ?? 0, newStart, now),
      });
    }
  }
  // A booking made too close to its start to be reconfirmed, moved further out, is due again.
  if (!hadBooker && state.status === "confirmed") {
    const due = bookerReconfirm(contract, state.principal, newStart, now);
    if (due !== undefined) out.push(due);
  }
  return out.length === 0 && state.participants === undefined ? undefined : out;
}

/** The participant `who` may answer as: a required participant, or the booker reconfirming. */
export function participantFor(state: BookingState, who: string): StoredParticipant | undefined {
  const mine = (state.participants ?? []).filter((p) => p.who === who && p.status !== "not_required");
  // A booker also named as a participant answers as the participant first.
  return (
    mine.find((p) => p.role !== "booker" && p.status === "pending") ??
    mine.find((p) => p.status === "pending") ??
    mine[0]
  );
}
