/**
 * "4. cancel_session" (`POST /sessions/{id}/cancel`, `X-Org-Api-Key`): 409 `ALREADY_CANCELLED`
 * answers the session cancelled (the port's cancel is idempotent).
 */
import type { UpstreamBooking } from "../ports/bookings.js";
import type { ConnectorResult } from "../ports/result.js";
import type { ServicialoContext } from "./context.js";
import { fail } from "./results.js";
import { answer, byId, type ServicialoJournal } from "./sessions.js";
import { readCancelled, readError } from "./wire.js";

/**
 * "4. cancel_session", Request Fields: `cancelledBy` is "client", "provider", "admin" or
 * "system" (default "system"). The guest is the client; the host (the business, its operator)
 * is the provider side; the gateway acting on its own (an approval deadline) is the system.
 */
const CANCELLED_BY = { guest: "client", host: "provider", system: "system" } as const;

export async function cancelSession(
  ctx: ServicialoContext,
  journal: ServicialoJournal,
  upstreamId: string,
  reason?: string,
  by?: "guest" | "host" | "system",
): Promise<ConnectorResult<UpstreamBooking>> {
  // Cancelled already, by this process: answered as it is, with the call that cancelled it.
  const before = journal.find(byId(upstreamId));
  if (before?.booking.status === "cancelled") return answer(before);
  const { result } = await ctx.send("POST", `/sessions/${encodeURIComponent(upstreamId)}/cancel`, {
    body: {
      ...(reason !== undefined ? { reason: reason.slice(0, 500) } : {}),
      cancelledBy: CANCELLED_BY[by ?? "system"],
    },
    authed: true,
  });
  if (!result.ok) return result;
  const { status, body } = result.value;
  const e = readError(body);
  // Cancelling a cancelled session answers it as it is (the port's cancel is idempotent).
  const done =
    (status === 200 && readCancelled(body) !== undefined) ||
    (status === 409 && e.code === "ALREADY_CANCELLED");
  if (done) {
    const known = journal.find(byId(upstreamId))?.booking;
    const booking: UpstreamBooking = known
      ? { ...known, status: "cancelled" }
      : // Unknown to this process (no readback): the id and the state are all the platform said.
        { upstreamId, serviceId: "", start: 0, resourceIds: [], status: "cancelled" };
    journal.update(byId(upstreamId), () => ({
      booking,
      ...(result.upstream ? { upstream: result.upstream } : {}),
    }));
    return { ok: true, value: booking, ...(result.upstream ? { upstream: result.upstream } : {}) };
  }
  if (status === 404)
    return fail({ code: "not_found", message: "Servicialo: session not found" }, result.upstream);
  return fail(
    {
      code: "invalid_request",
      message: `Servicialo refused the cancel (HTTP ${status}${e.currentStatus ? `, session is ${e.currentStatus}` : ""})`,
    },
    result.upstream,
  );
}
