/**
 * cancel_session (A2A §4) and reschedule_session (A2A §5), for the organization itself (its
 * X-Org-Api-Key was checked by the caller): so the core's host-side paths.
 *
 * Cancel says who cancelled, as the request's `cancelledBy` does (A2A §4 Request Fields:
 * "client", "provider", "admin" or "system", default "system"): "client" is the guest's own
 * cancel, asked for by the organization on its behalf (the core's guestCancel, recorded as the
 * guest's); "provider" and "admin" are the host's (hostCancel: upstream cancelled, time freed,
 * guest notified); "system" is the host side acting without a person, recorded as such. The
 * gateway applies no cancellation fee of its own; a catalog cancellationFee is the host's
 * billing flow's to charge, reported here as penalty "full" with its amount when it applies
 * (the catalog names no percentage, so none is invented).
 *
 * Reschedule moves the booking in place with the core's change engine: the new time is held
 * as a change of this booking (the same allocation checks as any hold, so a live hold or
 * booking from any edge refuses it), then the atomic move (upstream first). The host asked, so
 * the move needs no approval from it.
 */
import type { BookingDeps } from "../../../booking/api.js";
import { hostBooking } from "../../../booking/bookings/store.js";
import { applyMove, placeChangeHold } from "../../../booking/changes/index.js";
import { createHold } from "../../../booking/holds/index.js";
import type { BookingCoreApi } from "../../../booking/core.js";
import { parseInstant } from "../../../protocol/time/index.js";
import { formatDecimalAmount } from "../../../protocol/money/index.js";
import type { IntentOutcome } from "../port.js";
import { internalStatus } from "./session-state.js";
import { answer, failure, invalidData, refusalOutcome, utc } from "./wire.js";

const ACTIVE = new Set(["pending_host", "tentative", "confirmed"]);

export async function cancelSession(
  core: BookingCoreApi,
  deps: BookingDeps,
  hostId: string,
  sessionId: string,
  params: Readonly<Record<string, unknown>>,
  now: number,
): Promise<IntentOutcome> {
  const reason = params.reason;
  if (reason !== undefined && (typeof reason !== "string" || reason.length > 500))
    return invalidData({ reason: ["Expected a string of at most 500 characters"] });
  const by = params.cancelledBy ?? "system";
  if (by !== "client" && by !== "provider" && by !== "admin" && by !== "system")
    return invalidData({ cancelledBy: ['Expected "client", "provider", "admin" or "system"'] });
  const found = await hostBooking(deps, hostId, sessionId);
  if (!found.ok)
    return found.error.code === "not_found" ? failure(404, "Session not found") : refusalOutcome(found.error);
  const state = found.value.loaded.state;
  if (state.status === "cancelled") return failure(409, "Session is already cancelled", "ALREADY_CANCELLED");
  if (!ACTIVE.has(state.status) || now >= state.start)
    return failure(400, "Session cannot be cancelled in its current state", undefined, {
      current_status: internalStatus(state.status),
    });
  const done =
    by === "client"
      ? await core.guestCancel(hostId, sessionId, { ...(typeof reason === "string" && { reason }) })
      : await core.hostCancel(hostId, sessionId, {
          ...(typeof reason === "string" && { message: reason }),
          timeStillGood: true,
          by: by === "system" ? "system" : "host",
        });
  if (!done.ok) return refusalOutcome(done.error);
  const service = found.value.host.catalog.services.find((s) => s.id === state.serviceId);
  const fee = service?.cancellationFee;
  const window = service?.cancellation?.windowMs;
  const late = fee !== undefined && fee.minor > 0 && (window === undefined || state.start - now < window);
  return answer(200, {
    sessionId,
    status: "cancelled",
    policy_applied: late
      ? { penalty: "full", fee: formatDecimalAmount(fee.minor, fee.currency), currency: fee.currency }
      : { penalty: "none" },
  });
}

export async function rescheduleSession(
  deps: BookingDeps,
  hostId: string,
  sessionId: string,
  params: Readonly<Record<string, unknown>>,
  now: number,
): Promise<IntentOutcome> {
  if (params.newProviderId !== undefined)
    return invalidData({ newProviderId: ["Changing the provider while rescheduling is not supported"] });
  const at = parseInstant(params.scheduledAt ?? params.newScheduledAt, "scheduledAt");
  if (!at.ok) return invalidData({ scheduledAt: ["Expected an ISO 8601 datetime with a timezone offset"] });
  const found = await hostBooking(deps, hostId, sessionId);
  if (!found.ok)
    return found.error.code === "not_found" ? failure(404, "Session not found") : refusalOutcome(found.error);
  const { host, loaded } = found.value;
  const state = loaded.state;
  if (state.status !== "confirmed" && state.status !== "pending_host")
    return failure(400, "Session cannot be rescheduled in its current state", "SLOT_INVALID", {
      current_status: internalStatus(state.status),
    });
  if (at.value.epochMs < now) return failure(400, "Cannot reschedule to the past", "SLOT_INVALID");
  if (now >= state.start)
    return failure(400, "Session cannot be rescheduled in its current state", "SLOT_INVALID", {
      current_status: "in_progress",
    });
  const held = await placeChangeHold(deps, createHold, host, state, {
    caller: { agentKey: state.agentKey },
    principal: state.principal,
    start: at.value.epochMs,
    proposalId: deps.ids.next("p_"),
    by: "host",
    ttlMs: 120_000,
  });
  if (!held.ok) return slotInvalid(held.error.code, held.error);
  const moved = await applyMove(deps, host, state, held.value, {
    approved: "offer",
    mandate: `a2a-org:${hostId}`,
  });
  if (!moved.ok) {
    await deps.store.releaseHold(hostId, held.value.holdId, deps.clock.now());
    return slotInvalid(moved.error.code, moved.error);
  }
  const s = moved.value;
  return answer(200, {
    sessionId,
    status: internalStatus(s.status),
    scheduledAt: utc(s.start),
    duration: s.end === undefined ? null : Math.round((s.end - s.start) / 60_000),
  });
}

/** A2A §5: the new time's refusals are all 400 SLOT_INVALID, worded as the spec does. */
function slotInvalid(code: string, refusal: Parameters<typeof refusalOutcome>[0]): IntentOutcome {
  switch (code) {
    case "slot_unavailable":
      return failure(400, "Provider already has a session at this time", "SLOT_INVALID");
    case "outside_booking_window":
    case "invalid_request":
      return failure(400, "Scheduled time is outside provider availability", "SLOT_INVALID");
    default:
      return refusalOutcome(refusal);
  }
}
