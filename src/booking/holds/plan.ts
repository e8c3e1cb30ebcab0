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
import type { Requirement, ResourceCandidate } from "../../holds/port.js";
import type { WorkingResource } from "../../holds/working-hours.js";
import type { HostRuntime } from "../api.js";
import { hoursClock } from "./hours-clock.js";

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
  return new HoursIndex(hoursClock(runtime.catalog.organization.timezone, span), span);
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
const requiredTypes = (service: CatalogService): ReadonlySet<string> =>
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

/** One `requires` entry as every start of a request reads it. */
export interface PlannedNeed {
  readonly type: string;
  readonly combine: boolean;
  readonly units: number;
  /** Indexes into SlotPlanner.pool of the resources of its type, in catalog order. */
  readonly members: readonly number[];
}

/**
 * planSlot for many starts of one request (an availability query tests up to 3,000): what does
 * not depend on the start (the allowed resources, each requirement's candidates of its type,
 * the units) is worked out once, a start's upstream-free resources are a mask over `pool`, and
 * working hours are read once per distinct schedule (hours and zone) and start, not once per
 * resource. planSlot itself is one use of it, so holds and availability plan alike.
 */
export class SlotPlanner {
  /** The resources the request may use (candidateResources), in catalog order. */
  readonly pool: readonly WorkingResource[];
  readonly needs: readonly PlannedNeed[];
  /** No resource id appears twice in `pool` (the catalog's ids are distinct, as they should be). */
  readonly distinctIds: boolean;
  private readonly indexesOf = new Map<string, number[]>();
  /** pool index -> its schedule (a distinct hours object and zone). */
  private readonly scheduleOf: Int32Array;
  /** Per schedule: 0 not read yet for `coverFor`, 1 covers it, 2 does not. */
  private readonly covered: Uint8Array;
  private coverFor: Interval | undefined;

  constructor(
    readonly service: CatalogService,
    runtime: HostRuntime,
    private readonly hours: HoursIndex,
    partySize: number,
    resourceId?: string,
  ) {
    const allowed = new Set(candidateResources(runtime, service, resourceId).map((r) => r.id));
    const all = workingResources(runtime);
    this.pool = all.filter((r) => allowed.has(r.id));
    const schedules: WorkingResource[] = [];
    this.scheduleOf = new Int32Array(this.pool.length);
    this.pool.forEach((r, i) => {
      const known = this.indexesOf.get(r.id);
      if (known === undefined) this.indexesOf.set(r.id, [i]);
      else known.push(i);
      let k = schedules.findIndex((s) => s.hours === r.hours && s.zone === r.zone);
      if (k < 0) k = schedules.push(r) - 1;
      this.scheduleOf[i] = k;
    });
    this.distinctIds = this.indexesOf.size === this.pool.length;
    this.covered = new Uint8Array(schedules.length);
    this.needs = service.requires.map((r) => ({
      type: r.resourceType,
      combine: r.combine === true,
      units: unitsFor(r.resourceType, r.combine === true, all, partySize),
      members: this.pool.flatMap((res, i) => (res.type === r.resourceType ? [i] : [])),
    }));
  }

  /** A mask over `pool`: 1 where the resource is free upstream (every one when `free` is absent). */
  freeMask(free: Iterable<string> | undefined, into = new Uint8Array(this.pool.length)): Uint8Array {
    if (free === undefined) return into.fill(1);
    into.fill(0);
    for (const id of free) {
      const at = this.indexesOf.get(id);
      if (at === undefined) continue;
      if (at.length === 1) into[at[0]!] = 1;
      else for (const i of at) into[i] = 1;
    }
    return into;
  }

  /** The end of what a start occupies (duration + buffer, or the set-aside); undefined: no plan. */
  occupiedUntil(start: number, free: Uint8Array): number | undefined {
    const { service } = this;
    if (service.duration !== "open") return start + service.duration + service.bufferAfterMs;
    const aside = service.setAside;
    const until = typeof aside === "number" ? start + aside : this.untilCloseEnd(start, free);
    return until === undefined || until <= start ? undefined : until;
  }

  /**
   * §4.2 until_close: "until the first of the booking's resources closes for the day". Per
   * type, the latest close among its candidates; the interval ends at the earliest of those,
   * and only candidates working until then stay, so whichever are allocated close no earlier.
   */
  private untilCloseEnd(start: number, free: Uint8Array): number | undefined {
    let end: number | undefined;
    for (const need of this.needs) {
      let latest: number | undefined;
      for (const i of need.members) {
        if (free[i] !== 1) continue;
        const close = this.hours.stretchEnd(this.pool[i]!, start);
        if (close !== undefined && close > start && (latest === undefined || close > latest)) latest = close;
      }
      if (latest === undefined) return undefined;
      end = end === undefined ? latest : Math.min(end, latest);
    }
    return end;
  }

  /**
   * hours.covers(pool[i], interval), read once per schedule for the same interval object (the
   * caller passes one object per start).
   */
  works(i: number, interval: Interval): boolean {
    if (this.coverFor !== interval) {
      this.coverFor = interval;
      this.covered.fill(0);
    }
    const k = this.scheduleOf[i]!;
    if (this.covered[k] === 0) this.covered[k] = this.hours.covers(this.pool[i]!, interval) ? 1 : 2;
    return this.covered[k] === 1;
  }

  /** Whether occupiedUntil reads the free mask (an open-ended service's set-aside until close). */
  get intervalNeedsFree(): boolean {
    return this.service.duration === "open" && typeof this.service.setAside !== "number";
  }

  /**
   * planSlot's answer for `start` with the upstream-free mask. `occupied`: what occupiedUntil
   * answered for the same start and mask, when the caller has it.
   */
  plan(start: number, free: Uint8Array, occupied?: Interval): SlotPlan | undefined {
    let interval = occupied;
    if (interval === undefined) {
      const until = this.occupiedUntil(start, free);
      if (until === undefined) return undefined;
      interval = { start, end: until };
    }
    const { service } = this;
    const requirements = this.requirements(free, interval);
    return service.duration === "open"
      ? { start, interval, requirements }
      : { start, end: start + service.duration, interval, requirements };
  }

  /** The plan's requirements for a start occupying `interval` with the upstream-free mask. */
  requirements(free: Uint8Array, interval: Interval): Requirement[] {
    // As requirementFor (working-hours.ts), with the hours read from the index.
    return this.needs.map((need): Requirement => {
      const candidates: ResourceCandidate[] = [];
      for (const i of need.members) {
        const r = this.pool[i]!;
        if (free[i] === 1 && this.works(i, interval)) candidates.push({ id: r.id, capacity: r.capacity });
      }
      return need.combine
        ? { type: need.type, candidates, units: need.units, combine: true }
        : { type: need.type, candidates, units: need.units };
    });
  }

  /**
   * plan(start, freeMask(free), occupied) for a start the caller has already decided on, with
   * the requirements worked out only when read: an availability answer uses starts and ends.
   */
  deferredPlan(start: number, occupied: Interval, free: readonly string[]): SlotPlan {
    return new DeferredPlan(this, start, occupied, free);
  }
}

class DeferredPlan implements SlotPlan {
  declare readonly end?: number;
  readonly #planner: SlotPlanner;
  readonly #free: readonly string[];
  #requirements: readonly Requirement[] | undefined;

  constructor(
    planner: SlotPlanner,
    readonly start: number,
    readonly interval: Interval,
    free: readonly string[],
  ) {
    this.#planner = planner;
    this.#free = free;
    if (planner.service.duration !== "open")
      (this as { end?: number }).end = start + planner.service.duration;
  }

  get requirements(): readonly Requirement[] {
    this.#requirements ??= this.#planner.requirements(this.#planner.freeMask(this.#free), this.interval);
    return this.#requirements;
  }
}

export function planSlot(
  runtime: HostRuntime,
  service: CatalogService,
  start: number,
  options: PlanOptions,
): SlotPlan | undefined {
  const hours = options.hours ?? hoursIndexFor(runtime, service, start, start);
  const planner = new SlotPlanner(service, runtime, hours, options.partySize, options.resourceId);
  return planner.plan(start, planner.freeMask(options.free));
}
