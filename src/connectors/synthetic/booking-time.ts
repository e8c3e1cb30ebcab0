/**
 * The time of a create or a move, as the synthetic platform checks it: start, end and the
 * resources named, then whether the platform as it stands can serve it (SchCP §4.1;
 * §4.2 for open-ended services) — the past and taken time are slot_taken.
 */
import type { CatalogService } from "../port.js";
import type { SyntheticAppointment } from "./appointment.js";
import { refuse, type Answer, type SyntheticContext } from "./context.js";
import { directHours, STRETCH_CAP_MS } from "./hours.js";
import { longestTake, occupancyIndex, planSlot, type AppointmentPlan } from "./slots.js";

/** A time request (create or move) as the platform accepts it. */
export interface CheckedTime {
  readonly service: CatalogService;
  readonly start: number;
  readonly end?: number;
  readonly only: ReadonlySet<string>;
}

const isInstant = (v: unknown): v is number => typeof v === "number" && Number.isSafeInteger(v);

export const isStringList = (v: unknown): v is readonly string[] =>
  Array.isArray(v) && v.every((x) => typeof x === "string");

/** Start, end and named resources of a create or move, checked against the service. */
export function checkTime(
  ctx: SyntheticContext,
  service: CatalogService,
  start: unknown,
  end: unknown,
  resourceIds: unknown,
): CheckedTime | Answer<never> {
  if (!isInstant(start)) return refuse("invalid_request", "start is epoch ms");
  if (service.duration === "open") {
    // §4.2: an open-ended booking has no end.
    if (end !== undefined) return refuse("invalid_request", "an open-ended booking has no end");
  } else if (end !== undefined && (!isInstant(end) || end <= start)) {
    return refuse("invalid_request", "end is epoch ms after start");
  }
  if (!isStringList(resourceIds)) return refuse("invalid_request", "resourceIds is a list of resource ids");
  const types = new Set(service.requires.map((r) => r.resourceType));
  for (const id of resourceIds) {
    const r = ctx.scenario.resources.find((x) => x.id === id);
    if (r === undefined) return refuse("invalid_request", `no resource "${id}"`);
    if (!types.has(r.type)) return refuse("invalid_request", `${service.id} does not use a ${r.type}`);
  }
  const base = { service, start, only: new Set(resourceIds) };
  return isInstant(end) ? { ...base, end } : base;
}

/**
 * The plan for a time on the platform as it stands, or the refusal: the past and taken time
 * are slot_taken; named resources the service would not use are invalid_request.
 */
export function planTime(
  ctx: SyntheticContext,
  time: CheckedTime,
  partySize: number,
  appointments: readonly SyntheticAppointment[],
  ignoreId?: string,
): AppointmentPlan | Answer<never> {
  if (time.start < ctx.clock.now()) return refuse("slot_taken", "that time has passed");
  const ask = {
    service: time.service,
    start: time.start,
    partySize,
    ...(time.end === undefined ? {} : { end: time.end }),
    ...(time.only.size === 0 ? {} : { only: time.only }),
  };
  const plan = planSlot(
    ctx.scenario.resources,
    directHours(ctx.scenario.organization.timezone),
    occupancyIndex(appointments, ignoreId),
    ask,
  );
  if (plan === undefined) return refuse("slot_taken", "that time is no longer available");
  const used = new Set(plan.allocations.map((a) => a.resourceId));
  const unused = [...time.only].find((id) => !used.has(id));
  if (unused !== undefined) return refuse("invalid_request", `the booking would not use "${unused}"`);
  return plan;
}

/** The range whose appointments decide a time: from its start for as long as it can take. */
export const decidingRange = (time: CheckedTime) => ({
  start: time.start,
  end: (time.end ?? time.start) + longestTake(time.service, STRETCH_CAP_MS),
});
