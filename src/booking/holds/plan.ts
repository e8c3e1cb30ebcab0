/**
 * What one start of a service occupies and needs (SchCP §4.1, §4.2), pure: the interval
 * (duration + buffer_after, or the set-aside of an open-ended service) and one store
 * Requirement per `requires` entry, with the candidates that work for the whole interval
 * (working hours in the upstream location's zone), are free upstream at that start, and, for
 * a selectable service, are the resource the guest chose. Availability and holds share it, so
 * a slot is offered exactly when a hold would be planned the same way.
 */
import type { CatalogResource, CatalogService } from "../../connectors/port.js";
import { HoursIndex, type Interval } from "../../calendar/index.js";
import type { Requirement } from "../../holds/port.js";
import type { WorkingResource } from "../../holds/working-hours.js";
import type { HostRuntime } from "../api.js";
import { spanZoneView } from "../rules/zone-view.js";

export interface SlotPlan {
  readonly start: number;
  /** End of the service itself (no buffer); absent when open-ended (§4.2). */
  readonly end?: number;
  /** What the hold occupies. */
  readonly interval: Interval;
  readonly requirements: readonly Requirement[];
}

export interface PlanOptions {
  readonly partySize: number;
  /** Resources the upstream reports free at this start; all when absent. */
  readonly free?: ReadonlySet<string>;
  /** A selectable service's chosen resource (already checked to exist). */
  readonly resourceId?: string;
  /** Working hours over the request's span (hoursIndexFor); one is made when absent. */
  readonly hours?: HoursIndex;
}

const DAY = 86_400_000;

/**
 * The hours index for starts in [first, last]: wide enough for the longest time one start
 * takes (duration + buffer, a set-aside, or until close with its week of lookahead).
 */
export function hoursIndexFor(
  runtime: HostRuntime,
  service: CatalogService,
  first: number,
  last: number,
): HoursIndex {
  const longest =
    service.duration === "open"
      ? typeof service.setAside === "number"
        ? service.setAside
        : 8 * DAY
      : service.duration + service.bufferAfterMs;
  const span = { start: first, end: last + longest };
  return new HoursIndex(spanZoneView(runtime.catalog.organization.timezone, span), span);
}

export function workingResources(runtime: HostRuntime): WorkingResource[] {
  const zone = runtime.catalog.organization.timezone;
  return runtime.catalog.resources.map((r) => ({
    id: r.id,
    type: r.type,
    capacity: r.capacity,
    zone,
    hours: r.hours,
  }));
}

/** The resource types a service needs (its candidates' types). */
export const requiredTypes = (service: CatalogService): ReadonlySet<string> =>
  new Set(service.requires.map((r) => r.resourceType));

/** Catalog resources a query may touch: every resource of a required type, or the chosen one. */
export function candidateResources(
  runtime: HostRuntime,
  service: CatalogService,
  resourceId?: string,
): CatalogResource[] {
  const types = requiredTypes(service);
  const chosen = runtime.catalog.resources.find((r) => r.id === resourceId);
  return runtime.catalog.resources.filter(
    (r) => types.has(r.type) && (chosen === undefined || r.type !== chosen.type || r.id === chosen.id),
  );
}

/**
 * Units a requirement takes (§4.1): a party takes as many units of a shared resource as it has
 * people, and "combine" adds capacities up to the party; a resource of capacity one (a bay, a
 * chair) serves the whole party with one unit.
 */
function unitsFor(
  type: string,
  combine: boolean,
  resources: readonly WorkingResource[],
  party: number,
): number {
  if (combine) return party;
  return resources.some((r) => r.type === type && r.capacity > 1) ? party : 1;
}

/**
 * §4.2 until_close: "until the first of the booking's resources closes for the day". Per
 * type, the latest close among its candidates; the interval ends at the earliest of those,
 * and only candidates working until then stay, so whichever are allocated close no earlier.
 */
function untilCloseEnd(
  service: CatalogService,
  resources: readonly WorkingResource[],
  start: number,
  hours: HoursIndex,
) {
  let end: number | undefined;
  for (const r of service.requires) {
    let latest: number | undefined;
    for (const res of resources) {
      if (res.type !== r.resourceType) continue;
      const close = hours.stretchEnd(res, start);
      if (close !== undefined && close > start && (latest === undefined || close > latest)) latest = close;
    }
    if (latest === undefined) return undefined;
    end = end === undefined ? latest : Math.min(end, latest);
  }
  return end;
}

export function planSlot(
  runtime: HostRuntime,
  service: CatalogService,
  start: number,
  options: PlanOptions,
): SlotPlan | undefined {
  const allowed = new Set(candidateResources(runtime, service, options.resourceId).map((r) => r.id));
  const all = workingResources(runtime);
  const hours = options.hours ?? hoursIndexFor(runtime, service, start, start);
  const resources = all.filter(
    (r) => allowed.has(r.id) && (options.free === undefined || options.free.has(r.id)),
  );
  let interval: Interval;
  let end: number | undefined;
  if (service.duration === "open") {
    const aside = service.setAside;
    const until = typeof aside === "number" ? start + aside : untilCloseEnd(service, resources, start, hours);
    if (until === undefined || until <= start) return undefined;
    interval = { start, end: until };
  } else {
    end = start + service.duration;
    interval = { start, end: end + service.bufferAfterMs };
  }
  // As requirementFor (working-hours.ts), with the hours read from the index.
  const requirements = service.requires.map((r): Requirement => {
    const candidates = resources
      .filter((res) => res.type === r.resourceType && hours.covers(res, interval))
      .map((res) => ({ id: res.id, capacity: res.capacity }));
    const units = unitsFor(r.resourceType, r.combine === true, all, options.partySize);
    return r.combine === true
      ? { type: r.resourceType, candidates, units, combine: true }
      : { type: r.resourceType, candidates, units };
  });
  return { start, ...(end !== undefined && { end }), interval, requirements };
}
