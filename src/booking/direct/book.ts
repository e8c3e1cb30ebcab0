/**
 * bookNow: a hold and its confirm in one step, for edges whose protocol has no hold of its own
 * (OSBP booking.create, later Servicialo A2A book_session). It runs the very engine SchCP's
 * POST /holds and confirm run: the same checks (access, window, notice, party size), the
 * caller's Authority, the same atomic allocation against every live hold and booking, the same
 * two-phase upstream create with a key derived from the hold, the same reconciliation after a
 * crash. So a live SchCP hold is never taken by a booking from another edge, and a host's
 * approval policy binds every edge (a host_approval host answers pending_host).
 *
 * Retries: the edge names its attempt (`attemptKey`, its own idempotency key scoped by the
 * edge). The hold id is derived from it, so a retry finds the attempt's hold again: booked →
 * the booking; confirming → in progress; held (the create failed and nothing was made, or the
 * platform wanted verification) → confirmed again under the SAME upstream key, so an
 * ambiguous first create can never become a second upstream booking. A hold that ended
 * (released after slot_taken, expired) made nothing upstream: the next attempt number is used.
 */
import { principalOf } from "../authority.js";
import { grantOf } from "../contract.js";
import { sha256Base64Url } from "../../protocol/json/index.js";
import { err, ok } from "../../protocol/result.js";
import { inSpan } from "../../protocol/tracing.js";
import type { BookingDeps, Caller, HostRuntime, UseCase } from "../api.js";
import type { UpstreamCustomer } from "../upstream.js";
import type { BookingState } from "../bookings/state.js";
import { loadBooking } from "../bookings/store.js";
import { invalidState, notFound, refuse } from "../bookings/refuse.js";
import { fenceHold, settleUpstream } from "../confirm/confirm.js";
import { answerAtOnce } from "../answers/index.js";
import { decodeHoldOrThrow } from "../holds/payload.js";
import type { ConfirmIntent } from "../confirm/intent.js";
import { holdStateRefusal } from "../confirm/checks.js";
import { createHold } from "../holds/create-hold.js";
import type { HoldRecord } from "../../holds/port.js";
import { checkFreeTextNotes, withContactRemedy } from "../rules/index.js";

export interface DirectBookingIntent {
  readonly serviceId: string;
  /** Epoch ms. */
  readonly start: number;
  /** A resource the person asked for (an OSBP provider), whatever the service's selectable rule. */
  readonly resourceId?: string;
  readonly partySize: number;
  readonly customer?: UpstreamCustomer;
  readonly notes?: string;
  /** Passed to the platform's create and kept nowhere. */
  readonly verificationCode?: string;
  /** The edge's own name for this attempt, scoped by the edge ("osbp:<org>:<idempotency_key>"). */
  readonly attemptKey: string;
}

export interface DirectBooking {
  readonly state: BookingState;
  /** True when an earlier call of the same attempt had already booked it. */
  readonly replayed: boolean;
}

/** A direct booking's hold lives only while it is confirmed (the upstream lease covers the create). */
const DIRECT_HOLD_TTL_MS = 120_000;
/** Attempts of one attemptKey whose holds ended before a new key is needed. */
const MAX_ATTEMPTS = 16;

/** A hold id derived from the attempt; the same characters as any other hold id. */
export const attemptHoldId = (hostId: string, attemptKey: string, n: number): string =>
  `h_${sha256Base64Url(`direct\n${hostId}\n${attemptKey}\n${n}`).slice(0, 22)}`;

export function bookNow(
  deps: BookingDeps,
  hostId: string,
  caller: Caller,
  intent: DirectBookingIntent,
): UseCase<DirectBooking> {
  const attributes = { "booking.host_id": hostId, "booking.edge": caller.authority?.kind ?? "direct" };
  return inSpan("booking.book_now", { attributes }, () => book(deps, hostId, caller, intent));
}

async function book(
  deps: BookingDeps,
  hostId: string,
  caller: Caller,
  intent: DirectBookingIntent,
): UseCase<DirectBooking> {
  const host = deps.hosts.get(hostId);
  if (host === undefined) return err(notFound("host"));
  // §5.3 free text: refused before anything is held or stored, on every edge.
  const notes = checkFreeTextNotes(host.config.policies, intent.notes);
  if (notes !== undefined) return err(withContactRemedy(notes, host.config));
  for (let n = 0; n < MAX_ATTEMPTS; n++) {
    const holdId = attemptHoldId(hostId, intent.attemptKey, n);
    const hold = await deps.store.getHold(hostId, holdId, deps.clock.now());
    if (hold === undefined) return placeAndConfirm(deps, host, caller, intent, holdId);
    switch (hold.state) {
      case "booked": {
        const loaded =
          hold.bookingId === undefined ? undefined : await loadBooking(deps.store, hostId, hold.bookingId);
        if (loaded === undefined)
          return err(invalidState("the booking is being recorded", { retryAfterMs: 1_000 }));
        return ok({ state: loaded.state, replayed: true });
      }
      case "confirming":
        return err(holdStateRefusal(hold) ?? invalidState("the booking is being made"));
      case "held":
        return confirmHeld(deps, host, caller, hold, intent);
      case "expired":
      case "released":
        continue;
    }
  }
  return err(
    refuse(
      "invalid_request",
      "invalid_request",
      "too many failed attempts under this idempotency key; use a new one",
    ),
  );
}

async function placeAndConfirm(
  deps: BookingDeps,
  host: HostRuntime,
  caller: Caller,
  intent: DirectBookingIntent,
  holdId: string,
): UseCase<DirectBooking> {
  const placed = await createHold(deps, host, {
    caller,
    serviceId: intent.serviceId,
    start: intent.start,
    ttlMs: Math.min(DIRECT_HOLD_TTL_MS, host.config.policies.holds.maxTtlMs),
    partySize: intent.partySize,
    ...(intent.resourceId !== undefined && { pinnedResourceId: intent.resourceId }),
    kind: "booking",
    holdId,
  });
  if (!placed.ok) return placed;
  return confirmHeld(deps, host, caller, placed.value.record, intent);
}

async function confirmHeld(
  deps: BookingDeps,
  host: HostRuntime,
  caller: Caller,
  hold: HoldRecord,
  intent: DirectBookingIntent,
): UseCase<DirectBooking> {
  const hostId = host.config.id;
  const payload = decodeHoldOrThrow(hold.payload, hold.holdId);
  const begun = await fenceHold(deps, hostId, hold.holdId, deps.clock.now());
  if (!begun.ok) return begun;
  const principal = principalOf(caller) ?? caller.agentKey;
  // The person approved this booking's summary through the edge's own gate (OSBP "final
  // confirmation"): consent to the offer as shown.
  // §7.9: a host_approval host says yes at once to its owner, or by a rule its person signed.
  const answer = await answerAtOnce(
    host,
    { store: deps.rules, check: deps.ruleCheck },
    {
      principal,
      serviceId: payload.contract.service.id,
      start: payload.contract.start,
      personRequired: false,
      now: deps.clock.now(),
    },
  );
  const confirmIntent: ConfirmIntent = {
    principal,
    consent: { approved: "offer", mandate: grantOf(caller.authority?.kind ?? "direct", principal) },
    ...(answer !== undefined && { answer }),
  };
  const made = await settleUpstream(
    deps,
    host,
    begun.value.hold,
    begun.value.fence,
    payload,
    confirmIntent,
    {
      ...(intent.customer !== undefined && { customer: intent.customer }),
      ...(intent.notes !== undefined && { notes: intent.notes }),
      ...(intent.verificationCode !== undefined && { verificationCode: intent.verificationCode }),
    },
    caller.authority?.kind ?? "direct",
  );
  if (!made.ok) {
    // A direct booking's hold is nobody's to keep: when the platform definitely made nothing
    // (it refused, asked for verification, or rate-limited us), give the time back now. After
    // an ambiguous failure the hold stays, so the retry reaches the platform under the same key.
    const code = made.error.upstream?.code;
    if (code !== undefined && code !== "timeout" && code !== "unavailable") {
      await deps.store.releaseHold(hostId, hold.holdId, deps.clock.now());
    }
    return err(withContactRemedy(made.error, host.config));
  }
  return ok({ state: made.value, replayed: false });
}
