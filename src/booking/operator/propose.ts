/**
 * A host change offer (SchCP §5.8, §5.11): the host proposes a new start (or place) for a
 * confirmed booking, or counters a pending_host one (counter.ts). The new time is held like any
 * change offer (it may overlap this booking), the proposal is attached with by "host", and the
 * guest hears it as booking.change_proposed, whose receipt is of the unchanged booking with the
 * proposal. It lasts at most until the booking would have started, and a counter at most until
 * the booking's approval deadline.
 */
import type { BookingDeps, HostRuntime, UseCase } from "../api.js";
import { err, ok } from "../../protocol/result.js";
import { parseInstant } from "../../protocol/time/index.js";
import { bookingView, type BookingView } from "../view.js";
import { invalidState, refuse, staleSequence } from "../bookings/refuse.js";
import type { BookingState } from "../bookings/state.js";
import { saveBooking } from "../bookings/store.js";
import { notifyGuest } from "../bookings/edges.js";
import { placeChangeHold } from "../changes/change-hold.js";
import type { CreateHold } from "../changes/hold-engine.js";
import type { Place } from "../contract.js";
import { hostBooking } from "../bookings/store.js";

export async function proposeChange(
  deps: BookingDeps,
  createHold: CreateHold,
  hostId: string,
  bookingId: string,
  input: { start: string; place?: Place },
): UseCase<BookingView> {
  const found = await hostBooking(deps, hostId, bookingId);
  if (!found.ok) return found;
  const { host, loaded } = found.value;
  const state = loaded.state;
  if (state.status !== "confirmed" && state.status !== "pending_host") {
    return err(invalidState(`a ${state.status} booking cannot be changed`));
  }
  return offerHostChange(deps, createHold, host, state, input);
}

/**
 * Holds the new terms as the booking's one open proposal (by "host"; any open one is replaced,
 * §5.7) and tells the guest. `start` absent keeps the booking's start (a new place only). The
 * `ttlMs` shortens its life below that bound. The
 * booking's status and sequence must not have moved meanwhile (else STALE_SEQUENCE, and the
 * new hold is given back).
 */
export async function offerHostChange(
  deps: BookingDeps,
  createHold: CreateHold,
  host: HostRuntime,
  state: BookingState,
  input: { start?: string; place?: Place; ttlMs?: number },
): UseCase<BookingView> {
  const hostId = host.config.id;
  const now = deps.clock.now();
  if (now >= state.start) return err(refuse("invalid_state", "already_started", "the booking has started"));
  let start = state.start;
  if (input.start !== undefined) {
    const parsed = parseInstant(input.start, "/start");
    if (!parsed.ok) return err(refuse("invalid_request", "invalid_request", parsed.error.message));
    start = parsed.value.epochMs;
  }

  // A proposal lasts at most until the booking would have started; a counter to a pending
  // booking at most until its approval deadline (§5.11).
  const until = Math.min(
    state.start,
    state.status === "pending_host" ? (state.approvalBy ?? state.start) : state.start,
  );
  const created = await placeChangeHold(deps, createHold, host, state, {
    // The proposal's hold belongs to the booking's guest: it is the guest who may accept it.
    caller: { agentKey: state.agentKey },
    principal: state.principal,
    start,
    ...(input.place !== undefined && { place: input.place }),
    proposalId: deps.ids.next("p_"),
    by: "host",
    ttlMs: Math.max(1, Math.min(until - now, input.ttlMs ?? Infinity)),
  });
  if (!created.ok) return created;
  const proposal = { ...created.value, expiresAt: Math.min(created.value.expiresAt, until) };
  const saved = await saveBooking(
    deps,
    host,
    state.bookingId,
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
