/**
 * Ending a booking (SchCP §5.6, §6), for the guest's cancel (schcp/cancel.ts) and the host's
 * answers (operator/): whether it can still be cancelled, and the ending itself.
 */
import type { BookingDeps, BookingRefusal, HostRuntime } from "../api.js";
import { err, ok } from "../../protocol/result.js";
import type { Result } from "../../protocol/result.js";
import { invalidState, refuse, upstreamRefusal } from "./refuse.js";
import { ACTIVE_STATUSES } from "./state.js";
import type { BookingState, CancelledBy } from "./state.js";
import { saveBooking } from "./store.js";
import type { LimitClaim } from "../authority.js";
import { offerFreedTime } from "../waitlist/offer.js";

/** §5.6: a confirmed, pending_host or tentative booking whose start has not passed. */
export function canCancel(state: BookingState, now: number): Result<void, BookingRefusal> {
  if (!ACTIVE_STATUSES.has(state.status)) return err(invalidState(`the booking is ${state.status}`));
  if (now >= state.start) {
    return err(
      refuse("invalid_state", "already_started", "the booking has started; attendance is the host's to mark"),
    );
  }
  return ok(undefined);
}

/**
 * Ends a booking (cancelled, declined, expired). The upstream booking is cancelled first, so
 * one the platform still holds never reads as ended here; the platform's "not found" means it
 * is gone there already. Then the booking's time and any held change are freed, and the state
 * `end` returns is written without its pending proposal (a cancelled one says who cancelled,
 * `by`). `end` answers undefined to write nothing: the booking already ended, or is no longer
 * in the state this ending was for.
 *
 * `toWaitlist`: the freed time goes to the waitlist first (SchCP §5.9, waitlist/offer.ts), in
 * the step that frees it. By default when the guest or the system ends the booking (a cancel, a
 * lapsed approval, a participant's decline); a host's cancel or decline only when the host says
 * the time is still good.
 */
export async function endBooking(
  deps: BookingDeps,
  host: HostRuntime,
  state: BookingState,
  upstreamReason: string | undefined,
  by: CancelledBy,
  now: number,
  end: (stored: BookingState) => BookingState | undefined,
  toWaitlist: boolean = by !== "host",
): Promise<Result<BookingState, BookingRefusal>> {
  const upstream = await host.connector.bookings.cancel(state.upstreamId, upstreamReason, by);
  if (!upstream.ok && upstream.error.code !== "not_found") return err(upstreamRefusal(upstream.error));
  await freeTime(deps, host, state, now, toWaitlist);
  // Whether this call wrote the ending (the last attempt of the compare-and-set decides): only
  // that call gives the booking's claimed units back, so they go back once.
  let endedHere = false;
  const saved = await saveBooking(
    deps,
    host,
    state.bookingId,
    (stored) => {
      const ended = end(stored);
      endedHere = ended !== undefined;
      if (ended === undefined) return ok(stored);
      const { proposal: _dropped, ...rest } = ended;
      return ok(rest.status === "cancelled" ? { ...rest, cancelledBy: by } : rest);
    },
    now,
  );
  if (saved.ok && endedHere && WILL_NOT_HAPPEN.has(saved.value.status)) {
    await giveBackClaims(deps, host, saved.value, now);
  }
  return saved;
}

/** Endings after which the booking will not happen: its claimed units go back (SchCP §3.3). */
const WILL_NOT_HAPPEN: ReadonlySet<string> = new Set(["cancelled", "declined", "expired"]);

/**
 * Hands each edge the outside-limit units it claimed for the booking (authority.ts LimitClaim),
 * before the ending is answered: a guest who cancels may book again at once (SchCP §3.3). An
 * edge's failure never undoes the ending.
 */
async function giveBackClaims(
  deps: Pick<BookingDeps, "edges">,
  host: HostRuntime,
  state: BookingState,
  now: number,
): Promise<void> {
  const claims = state.limitClaims ?? [];
  const byEdge = new Map<string, LimitClaim[]>();
  for (const claim of claims) byEdge.set(claim.edge, [...(byEdge.get(claim.edge) ?? []), claim]);
  for (const [name, own] of byEdge) {
    try {
      await deps.edges?.[name]?.giveBack?.(host, state, own, now);
    } catch {
      // The edge retries by its own means; the ending stands (§3.3 "never stops the cancel").
    }
  }
}

/** Frees the booking's time and any change offer's held time (§6 "frees its time"). */
async function freeTime(
  deps: BookingDeps,
  host: HostRuntime,
  state: BookingState,
  now: number,
  toWaitlist: boolean,
): Promise<void> {
  const hostId = host.config.id;
  if (toWaitlist)
    await offerFreedTime(
      deps,
      host,
      { kind: "booking", bookingId: state.bookingId },
      { start: state.start },
      now,
    );
  else await deps.store.releaseBooking(hostId, state.bookingId, now);
  if (state.proposal !== undefined) await deps.store.releaseHold(hostId, state.proposal.holdId, now);
}
