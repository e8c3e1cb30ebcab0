/**
 * A host change offer (SchCP §5.8, §5.11): the host proposes a new start for a confirmed
 * booking, or counters a pending_host one. The new time is held like any change offer (it may
 * overlap this booking), the proposal is attached with by "host", and the guest hears it as
 * booking.change_proposed, whose receipt is of the unchanged booking with the proposal. It
 * lasts at most until the booking would have started, and a counter at most until the
 * booking's approval deadline.
 */
import type { BookingDeps, UseCase } from "../api.js";
import { err, ok } from "../../protocol/result.js";
import { parseInstant } from "../../protocol/time/index.js";
import { bookingView, type BookingView } from "../view.js";
import { invalidState, refuse, staleSequence } from "../bookings/refuse.js";
import { saveBooking } from "../bookings/store.js";
import { notifyGuest } from "../bookings/edges.js";
import { placeChangeHold } from "../changes/change-hold.js";
import type { CreateHold } from "../changes/hold-engine.js";
import { hostBooking } from "../bookings/store.js";

export async function proposeChange(
  deps: BookingDeps,
  createHold: CreateHold,
  hostId: string,
  bookingId: string,
  input: { start: string },
): UseCase<BookingView> {
  const found = await hostBooking(deps, hostId, bookingId);
  if (!found.ok) return found;
  const { host, loaded } = found.value;
  const state = loaded.state;
  const now = deps.clock.now();
  if (state.status !== "confirmed" && state.status !== "pending_host") {
    return err(invalidState(`a ${state.status} booking cannot be changed`));
  }
  if (now >= state.start) return err(refuse("invalid_state", "already_started", "the booking has started"));
  const start = parseInstant(input.start, "/start");
  if (!start.ok) return err(refuse("invalid_request", "invalid_request", start.error.message));

  const until = Math.min(
    state.start,
    state.status === "pending_host" ? (state.approvalBy ?? state.start) : state.start,
  );
  const created = await placeChangeHold(deps, createHold, host, state, {
    // The proposal's hold belongs to the booking's guest: it is the guest who may accept it.
    caller: { agentKey: state.agentKey },
    principal: state.principal,
    start: start.value.epochMs,
    proposalId: deps.ids.next("p_"),
    by: "host",
    ttlMs: Math.max(1, until - now),
  });
  if (!created.ok) return created;
  const proposal = { ...created.value, expiresAt: Math.min(created.value.expiresAt, until) };
  const saved = await saveBooking(
    deps,
    host,
    bookingId,
    (s) =>
      s.sequence === state.sequence && s.status === state.status
        ? ok({ ...s, proposal })
        : err(staleSequence(s.sequence)),
    now,
  );
  if (!saved.ok) {
    await deps.store.releaseHold(hostId, proposal.holdId, now);
    return saved;
  }
  await notifyGuest(deps, host, saved.value, "change_proposed", now);
  return ok(bookingView(saved.value, deps.clock.now()));
}
