/**
 * Changes to an existing appointment on the synthetic platform: reschedule (refused with
 * slot_taken when the new time is not free, its own time aside), status (approve,
 * decline, attendance) and cancel (idempotent). Each is an optimistic read-decide-write,
 * so a change made meanwhile by another process is never overwritten.
 */
import type { UpstreamBooking, UpstreamStatus } from "../port.js";
import {
  canTransition,
  toUpstreamBooking,
  type AppointmentStatus,
  type SyntheticAppointment,
} from "./appointment.js";
import { answer, busy, MAX_WRITE_ATTEMPTS, refuse, type Answer, type SyntheticContext } from "./context.js";
import { checkTime, decidingRange, planTime } from "./booking-time.js";

export interface MoveChange {
  readonly start: number;
  readonly end?: number;
  readonly resourceIds: readonly string[];
}

const STATUSES: ReadonlySet<string> = new Set([
  "tentative",
  "confirmed",
  "cancelled",
  "completed",
  "no_show",
]);

const notFound = <T>(id: string): Answer<T> => refuse("not_found", `no booking "${id}"`);

export async function moveBooking(
  ctx: SyntheticContext,
  upstreamId: string,
  change: MoveChange,
): Promise<Answer<UpstreamBooking>> {
  for (let attempt = 0; attempt < MAX_WRITE_ATTEMPTS; attempt++) {
    // The booking's service says how much time to read; the decision rests on the second,
    // consistent read of the booking and that time together.
    const first = (await ctx.backend.read(ctx.hostId, { ids: [upstreamId] })).byId.get(upstreamId);
    if (first === undefined) return notFound(upstreamId);
    const service = ctx.scenario.services.find((s) => s.id === first.serviceId);
    if (service === undefined) return refuse("invalid_request", "the booking's service is no longer offered");
    const time = checkTime(ctx, service, change?.start, change?.end, change?.resourceIds);
    if ("ok" in time) return time;

    const snap = await ctx.backend.read(ctx.hostId, { range: decidingRange(time), ids: [upstreamId] });
    const appointment = snap.byId.get(upstreamId);
    if (appointment === undefined) return notFound(upstreamId);
    if (appointment.status !== "tentative" && appointment.status !== "confirmed")
      return refuse("invalid_request", `a ${appointment.status} booking cannot be moved`);
    const plan = planTime(ctx, time, appointment.partySize, snap.occupying, upstreamId);
    if ("ok" in plan) return plan;
    const moved: SyntheticAppointment = {
      ...appointment,
      start: time.start,
      ...(service.duration === "open" ? {} : { end: time.end ?? time.start + service.duration }),
      occupiedUntil: plan.occupiedUntil,
      allocations: plan.allocations,
      updatedAt: Math.max(ctx.clock.now(), appointment.updatedAt + 1),
    };
    const written = await ctx.backend.write(ctx.hostId, snap.version, moved, false);
    if (written.outcome === "written") return answer(toUpstreamBooking(moved));
  }
  return busy();
}

export async function setStatus(
  ctx: SyntheticContext,
  upstreamId: string,
  status: UpstreamStatus,
  reason?: string,
): Promise<Answer<UpstreamBooking>> {
  if (!STATUSES.has(status)) return refuse("invalid_request", `"${String(status)}" is not a status to set`);
  const to = status as AppointmentStatus;
  for (let attempt = 0; attempt < MAX_WRITE_ATTEMPTS; attempt++) {
    const snap = await ctx.backend.read(ctx.hostId, { ids: [upstreamId] });
    const appointment = snap.byId.get(upstreamId);
    if (appointment === undefined) return notFound(upstreamId);
    // Asking again for the status it has is a no-op, so retries are safe.
    if (appointment.status === to) return answer(toUpstreamBooking(appointment));
    if (!canTransition(appointment.status, to))
      return refuse("invalid_request", `a ${appointment.status} booking cannot become ${to}`);
    const updated: SyntheticAppointment = {
      ...appointment,
      status: to,
      ...(to === "cancelled" && reason !== undefined ? { cancelReason: reason } : {}),
      updatedAt: Math.max(ctx.clock.now(), appointment.updatedAt + 1),
    };
    const written = await ctx.backend.write(ctx.hostId, snap.version, updated, false);
    if (written.outcome === "written") return answer(toUpstreamBooking(updated));
  }
  return busy();
}

export function cancelBooking(
  ctx: SyntheticContext,
  upstreamId: string,
  reason?: string,
): Promise<Answer<UpstreamBooking>> {
  if (reason !== undefined && typeof reason !== "string")
    return Promise.resolve(refuse("invalid_request", "reason is text"));
  return setStatus(ctx, upstreamId, "cancelled", reason);
}
