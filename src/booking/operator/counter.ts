/**
 * Counters (SchCP §5.11): a host whose booking is pending_host answers with other terms instead
 * of yes or no — a different start, a different place, or both.
 *
 * - The counter is a host change offer (§5.7, §5.8): a proposal by "host" with the new start
 *   (and end) and the place when it names one, its terms in the change offer each edge signs
 *   (SchCP: the change hold's attachment). It holds the new time until it lapses, at most
 *   until the booking's approval deadline (never past the booking's own start). The guest hears
 *   booking.change_proposed. The booking stays pending_host, approval deadline unchanged.
 * - Accepting it (acceptCounter, called by the edge that checked the acceptance: SchCP's
 *   proposal-response, §5.8) confirms the booking with the host's own answer (§7.9) and moves
 *   it to the counter's time and place in one step (changes/apply-move.ts).
 * - Declining it, or its lapse, clears it and releases its time (proposal-response,
 *   operator/deadlines.ts); the booking keeps waiting for the host's answer to the original.
 * - The host approving or declining the original while a counter is open clears the counter
 *   (operator/approve.ts; decline ends the booking and its open proposal, bookings/cancel.ts).
 */
import type { BookingDeps, BookingRefusal, HostRuntime, UseCase } from "../api.js";
import { err, ok, type Result } from "../../protocol/result.js";
import type { Place } from "../contract.js";
import { invalidState, refuse, upstreamRefusal } from "../bookings/refuse.js";
import type { BookingState, BookingStatus, StoredProposal } from "../bookings/state.js";
import { hostBooking } from "../bookings/store.js";
import type { Consent } from "../contract.js";
import { applyMove } from "../changes/apply-move.js";
import type { CreateHold } from "../changes/hold-engine.js";
import { checkPlace } from "../rules/place.js";
import type { BookingView } from "../view.js";
import { offerHostChange } from "./propose.js";
import { hostAnswer } from "../answers/decide.js";

/** What the host counters with: a new start, a new place, or both (at least one). */
export interface CounterInput {
  /** RFC 3339; absent keeps the booking's start. */
  readonly start?: string;
  /** Absent keeps the booking's place. */
  readonly place?: Place;
  /** How long the guest has to answer; at most (and by default) until the approval deadline. */
  readonly ttlMs?: number;
}

export async function counterBooking(
  deps: BookingDeps,
  createHold: CreateHold,
  hostId: string,
  bookingId: string,
  input: CounterInput,
): UseCase<BookingView> {
  const found = await hostBooking(deps, hostId, bookingId);
  if (!found.ok) return found;
  const { host, loaded } = found.value;
  const state = loaded.state;
  if (state.status !== "pending_host") {
    return err(
      invalidState(
        `a ${state.status} booking is not waiting for the host's answer; only a pending one can be countered`,
      ),
    );
  }
  if (state.awaitingUpstream === true) {
    return err(
      invalidState("this booking waits for the business's answer in its own system; answer it there"),
    );
  }
  const terms = counterTerms(host, state, input);
  if (!terms.ok) return terms;
  return offerHostChange(deps, createHold, host, state, terms.value);
}

/** The counter's start and place, or why they are not a counter (§5.2 place rules, §5.11). */
function counterTerms(
  host: HostRuntime,
  state: BookingState,
  input: CounterInput,
): Result<{ start?: string; place?: Place; ttlMs?: number }, BookingRefusal> {
  if (input.start === undefined && input.place === undefined) {
    return err(
      refuse("invalid_request", "invalid_request", "a counter names a new start, a new place, or both"),
    );
  }
  const location = host.config.services.find((s) => s.serviceId === state.serviceId)?.location ?? "host";
  let place: Place | undefined;
  if (input.place !== undefined) {
    if (location === "host") {
      return err(
        refuse(
          "invalid_request",
          "invalid_request",
          "this service happens at the host's own premises; a counter can only offer another time",
        ),
      );
    }
    // §5.2: the place a service at the guest's address or elsewhere needs; the host's own
    // service area binds guests, not the host's own offer.
    const where = checkPlace(location, input.place, undefined);
    if (!where.ok) return where;
    place = where.value;
  }
  const samePlace = place === undefined || JSON.stringify(place) === JSON.stringify(state.place);
  if (input.start === undefined && samePlace) {
    return err(
      refuse("invalid_request", "invalid_request", "the counter names the place the booking already has"),
    );
  }
  if (input.ttlMs !== undefined && !(input.ttlMs > 0))
    return err(refuse("invalid_request", "invalid_request", "ttl must be longer than zero"));
  return ok({
    ...(input.start !== undefined && { start: input.start }),
    ...(place !== undefined && { place }),
    ...(input.ttlMs !== undefined && { ttlMs: input.ttlMs }),
  });
}

/**
 * The status a pending_host booking takes when its guest accepts the host's counter (§5.11):
 * confirmed, "or tentative if required participants must answer again (§5.10)".
 *
 * Required participants accepted the original contract; a counter is a new one, so applyMove
 * (changes/apply-move.ts, reask) turns a booking with any required participant to tentative,
 * each of them pending again with a fresh deadline from the new start (§5.10 "Changes re-ask").
 */
function statusAfterAcceptedCounter(_state: BookingState): BookingStatus {
  return "confirmed";
}

/**
 * The guest accepted the counter (the edge checked the acceptance: the offer's hash, the
 * mandate and the closed-mandate policy, §5.3). The upstream is told the host's yes first (a
 * refusal there changes nothing), then the move is made in one step (apply-move.ts: the held
 * new time becomes the booking's, the old is released) together with the new status and the
 * host's answer. Should the move fail, the upstream booking is put back to tentative.
 */
export async function acceptCounter(
  deps: BookingDeps,
  host: HostRuntime,
  state: BookingState,
  counter: StoredProposal,
  consent: Consent,
): Promise<Result<BookingState, BookingRefusal>> {
  if (state.status !== "pending_host" || counter.by !== "host")
    return err(invalidState("no counter of the host is open on this booking"));
  const confirmed = await host.connector.bookings.setStatus(state.upstreamId, "confirmed");
  if (!confirmed.ok) return err(upstreamRefusal(confirmed.error));
  const moved = await applyMove(deps, host, state, counter, consent, (s) =>
    s.status === "pending_host"
      ? { status: statusAfterAcceptedCounter(s), answer: hostAnswer(host, deps.clock.now()) }
      : {},
  );
  if (!moved.ok) await host.connector.bookings.setStatus(state.upstreamId, "tentative");
  return moved;
}
