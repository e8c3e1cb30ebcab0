/**
 * "5. reschedule_session" (`POST /sessions/{id}/reschedule`, `X-Org-Api-Key`): the provider
 * cannot change.
 */
import type { BookingMove, UpstreamBooking } from "../ports/bookings.js";
import type { ConnectorResult } from "../ports/result.js";
import type { ServicialoContext } from "./context.js";
import { rescheduleError } from "./errors.js";
import { startText } from "./local-time.js";
import { fail, unreadable } from "./results.js";
import { bookingFrom, byId, type ServicialoJournal } from "./sessions.js";
import { readError, readRescheduled } from "./wire.js";

export async function reschedule(
  ctx: ServicialoContext,
  journal: ServicialoJournal,
  upstreamId: string,
  change: BookingMove,
): Promise<ConnectorResult<UpstreamBooking>> {
  const known = journal.find(byId(upstreamId))?.booking;
  const provider = known?.resourceIds[0];
  if (change.resourceIds.length > 0 && provider !== undefined && change.resourceIds[0] !== provider) {
    // Refused here, before any request ("5. reschedule_session": "Changing the provider
    // while rescheduling is not supported"): the platform never saw it, so it is not its
    // refusal (unsupported, not invalid_request).
    return fail({
      code: "unsupported",
      message: "Servicialo cannot change the provider when rescheduling; nothing was sent to it",
    });
  }
  const { result } = await ctx.send("POST", `/sessions/${encodeURIComponent(upstreamId)}/reschedule`, {
    body: { scheduledAt: startText(ctx, change.start) },
    authed: true,
  });
  if (!result.ok) return result;
  const { status, body } = result.value;
  if (status === 200) {
    const session = readRescheduled(body);
    const booking =
      session &&
      bookingFrom(
        ctx,
        session,
        {
          serviceId: known?.serviceId ?? "",
          resourceIds: known?.resourceIds ?? [],
          ...(known?.idempotencyKey ? { idempotencyKey: known.idempotencyKey } : {}),
        },
        known?.status ?? "confirmed",
      );
    if (booking === undefined) return unreadable("reschedule answer", result.upstream);
    journal.update(byId(upstreamId), () => ({
      booking,
      ...(result.upstream ? { upstream: result.upstream } : {}),
    }));
    return { ok: true, value: booking, ...(result.upstream ? { upstream: result.upstream } : {}) };
  }
  return fail(rescheduleError(status, readError(body)), result.upstream);
}
