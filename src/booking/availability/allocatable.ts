/**
 * Would the store grant a hold at this start? decideAllocation(plan.requirements, plan.interval,
 * occupancy, reservesAt(start), agents).ok for every start of one availability query, against
 * the occupancy read once for the query (SchCP §5.1, §7.2).
 *
 * A service that needs one resource of one type (no "combine"), which is most of them, is
 * answered without building the plan: decideAllocation's steps 3 and 4 then take the first
 * candidate, in catalog order, that is free upstream, works the whole interval and has
 * `units` to spare, so that is what is looked for, with the units in use read from the
 * resource's step function (units-in-use.ts). Step 5 (the walk-in reserve) runs as is on the
 * allocation found. Anything else (several requirements, combine, a catalog that repeats an
 * id) is decided by decideAllocation itself on planSlot's plan.
 */
import {
  decideAllocation,
  maxConcurrentUnits,
  violatedReserve,
  type AgentOccupancy,
  type OccupancyOf,
} from "../../holds/allocation.js";
import type { Interval, OccupancyMap } from "../../holds/port.js";
import type { HostRuntime } from "../api.js";
import { reservesAt } from "../holds/index.js";
import type { SlotPlan, SlotPlanner } from "../holds/plan.js";
import type { ZoneView } from "../rules/index.js";
import { agentOccupancy, nearOccupancy } from "./occupancy.js";
import { UnitsInUse } from "./units-in-use.js";

export class AllocationTest {
  private readonly single: boolean;
  private readonly agent: AgentOccupancy[];
  /** Per pool index: its step function, built when first needed (null: read by maxConcurrentUnits). */
  private readonly inUse: Array<UnitsInUse | null | undefined>;
  private near: ((i: Interval) => OccupancyOf) | undefined;

  constructor(
    private readonly runtime: HostRuntime,
    private readonly planner: SlotPlanner,
    private readonly occupancy: OccupancyMap,
    private readonly view: ZoneView,
  ) {
    const typeOf = (id: string) => runtime.catalog.resources.find((r) => r.id === id)?.type;
    this.agent = agentOccupancy(occupancy, typeOf);
    this.single = planner.needs.length === 1 && !planner.needs[0]!.combine && planner.distinctIds;
    this.inUse = new Array<UnitsInUse | null | undefined>(planner.pool.length);
  }

  /**
   * planSlot's plan for a start occupying `interval` (from planner.occupiedUntil) with the
   * resources free upstream (`freeIds`, and as planner.freeMask of them), when decideAllocation
   * would grant it; undefined when it would not.
   */
  granted(
    start: number,
    interval: Interval,
    free: Uint8Array,
    freeIds: readonly string[],
  ): SlotPlan | undefined {
    if (!this.single) return this.decide(start, interval, free);
    const { pool, needs } = this.planner;
    const need = needs[0]!;
    for (const i of need.members) {
      if (free[i] !== 1 || !this.planner.works(i, interval)) continue;
      const r = pool[i]!;
      if (r.capacity - this.unitsInUse(i, interval) < need.units) continue;
      const reserves = reservesAt(this.runtime, start, this.view);
      if (reserves.length > 0) {
        const planned = [{ resourceId: r.id, units: need.units, type: need.type }];
        if (violatedReserve(reserves, interval, planned, this.agent) !== undefined) return undefined;
      }
      return this.planner.deferredPlan(start, interval, freeIds);
    }
    return undefined;
  }

  private unitsInUse(i: number, interval: Interval): number {
    let steps = this.inUse[i];
    if (steps === undefined) {
      steps = UnitsInUse.of(this.occupancy.get(this.planner.pool[i]!.id) ?? []) ?? null;
      this.inUse[i] = steps;
    }
    if (steps !== null) return steps.maxIn(interval.start, interval.end);
    this.near ??= nearOccupancy(this.occupancy);
    const r = this.planner.pool[i]!;
    return maxConcurrentUnits(this.near(interval)({ id: r.id, capacity: r.capacity }), interval);
  }

  private decide(start: number, interval: Interval, free: Uint8Array): SlotPlan | undefined {
    const plan = this.planner.plan(start, free, interval);
    if (plan === undefined) return undefined;
    this.near ??= nearOccupancy(this.occupancy);
    const decision = decideAllocation(
      plan.requirements,
      plan.interval,
      this.near(plan.interval),
      reservesAt(this.runtime, start, this.view),
      this.agent,
    );
    return decision.ok ? plan : undefined;
  }
}
