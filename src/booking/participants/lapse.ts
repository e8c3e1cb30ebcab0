/**
 * A participant deadline passed (SchCP §5.10): the default applies. Run by the deadline runner
 * (operator/deadlines.ts) over the store's due set, so it works from any process on Redis.
 *
 * - A required participant's silence with default "release": the booking is expired (EXPIRED
 *   participant_did_not_answer), its time freed through endBooking, and it counts like an
 *   expired hold for the booker's agent, principal and attester (§5.10 Locks, §7.3).
 * - The booker's missed reconfirmation with "release": expired (not_reconfirmed), the time
 *   freed; "the lapse costs nothing and records nothing". A booking whose start has passed is
 *   never released for a missed reconfirmation: its deadline is simply dropped.
 * - Default "keep": the answer is no longer awaited; a tentative booking with nobody else to
 *   wait for becomes confirmed (sequence + 1).
 */
import type { BookingDeps, HostRuntime } from "../api.js";
import { ok } from "../../protocol/result.js";
import type { HoldOwner } from "../../holds/port.js";
import { endBooking } from "../bookings/cancel.js";
import { notifyGuest } from "../bookings/edges.js";
import type { BookingEnding, BookingState, StoredParticipant } from "../bookings/state.js";
import { saveBooking } from "../bookings/store.js";
import { recordBookerOutcome } from "./respond.js";
import { awaitedAnswers, dueParticipant, keptBySilence, replaceParticipant } from "./rules.js";

const didNotAnswer = (): BookingEnding => ({
  kind: "expired",
  reason: "participant_did_not_answer",
  message: "a participant did not answer in time",
});

const notReconfirmed = (): BookingEnding => ({
  kind: "expired",
  reason: "not_reconfirmed",
  message: "the booking was not reconfirmed in time",
});

/** Settles the booking's earliest due participant; true when something was written. */
export async function lapseParticipant(
  deps: BookingDeps,
  host: HostRuntime,
  state: BookingState,
  owner: HoldOwner,
  now: number,
): Promise<boolean> {
  const p = dueParticipant(state, now);
  if (p === undefined) return false;
  const booker = p.role === "booker";
  const release = p.default === "release" && !(booker && now >= state.start);
  if (release) {
    const refusal = booker ? notReconfirmed() : didNotAnswer();
    const saved = await endBooking(deps, host, state, refusal.message, "system", now, (s) =>
      dueParticipant(s, now) === undefined ? undefined : { ...s, status: "expired", refusal },
    );
    if (!saved.ok || saved.value.status !== "expired") return false;
    // §5.10 Locks: a lapse counts like an expired hold; a missed reconfirmation records nothing.
    if (!booker) await recordBookerOutcome(deps, owner, state.principal, "expired", now);
    await notifyGuest(deps, host, saved.value, "expired", now, { refusal });
    return true;
  }
  const saved = await saveBooking(
    deps,
    host,
    state.bookingId,
    (s) => {
      const due = dueParticipant(s, now);
      if (due === undefined) return ok(s);
      return ok(keep(s, due));
    },
    now,
  );
  if (!saved.ok) return false;
  if (state.status === "tentative" && saved.value.status === "confirmed") {
    if (state.creditPending === true)
      await recordBookerOutcome(deps, owner, state.principal, "confirmed", now);
    await notifyGuest(deps, host, saved.value, "confirmed", now);
  }
  return true;
}

function keep(s: BookingState, due: StoredParticipant): BookingState {
  const participants = replaceParticipant(s.participants ?? [], due, keptBySilence(due));
  if (s.status === "tentative" && awaitedAnswers(participants).length === 0) {
    const { creditPending: _c, ...rest } = s;
    return { ...rest, participants, status: "confirmed", sequence: s.sequence + 1 };
  }
  return { ...s, participants };
}
