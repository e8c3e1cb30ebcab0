/**
 * Sessions as the port's bookings, and what the create journal keeps of them: each booking
 * with the metadata of the call that last told us about it (no readback exists); answered again
 * from memory, that metadata is marked a replay.
 */
import { replayed, type CreateJournal, type KnownBooking } from "../http/create-journal.js";
import type { UpstreamBooking, UpstreamCreate, UpstreamStatus } from "../ports/bookings.js";
import type { ConnectorResult } from "../ports/result.js";
import type { ServicialoContext } from "./context.js";
import { withMeta } from "./results.js";
import { readStatedTotal, statusOf, type WireSession } from "./wire.js";

export type ServicialoJournal = CreateJournal<UpstreamCreate, KnownBooking>;

export const answer = (k: KnownBooking): ConnectorResult<UpstreamBooking> =>
  withMeta(k.booking, replayed(k.upstream));
export const byId = (id: string) => (k: KnownBooking) => k.booking.upstreamId === id;

export function bookingFrom(
  ctx: ServicialoContext,
  session: WireSession,
  base: { serviceId: string; resourceIds: readonly string[]; idempotencyKey?: string },
  fallbackStatus: UpstreamStatus,
): UpstreamBooking | undefined {
  const start = Date.parse(session.scheduled_at);
  if (Number.isNaN(start)) return undefined;
  const status = statusOf(session);
  // A book answer of this gateway's own A2A edge states the total it recorded (wire.ts).
  const total = readStatedTotal(session, ctx.currencies.get(base.serviceId));
  return {
    upstreamId: session.id,
    ...(base.idempotencyKey !== undefined ? { idempotencyKey: base.idempotencyKey } : {}),
    serviceId: base.serviceId,
    start,
    ...(session.duration_minutes !== undefined ? { end: start + session.duration_minutes * 60_000 } : {}),
    resourceIds: base.resourceIds,
    status: status === "unknown" ? fallbackStatus : status,
    ...(total !== undefined ? { total } : {}),
  };
}
