/**
 * Working hours applied to the hold store's resources (SchCP §4.1: "free, and within its
 * working hours, for the whole interval including the buffer"). The hours themselves and their
 * evaluation are src/calendar's; this only turns them into store Requirements.
 */
import { isWithinWorkingHours, type Interval, type WeeklyHours } from "../calendar/index.js";
import type { Requirement, ResourceCandidate } from "./port.js";

/** A resource as the host configured it (§4.1): type, capacity, zone and hours. */
export interface WorkingResource {
  readonly id: string;
  readonly type: string;
  readonly capacity: number;
  readonly zone: string;
  readonly hours: WeeklyHours;
}

/** The resources of a type that work for the whole interval, in the order given (§4.1). */
export function candidatesFor(
  resources: readonly WorkingResource[],
  requirementType: string,
  interval: Interval,
): ResourceCandidate[] {
  return resources
    .filter((r) => r.type === requirementType && isWithinWorkingHours(r.hours, r.zone, interval))
    .map((r) => ({ id: r.id, capacity: r.capacity }));
}

/** A store Requirement for one `requires` entry of a service. */
export function requirementFor(
  resources: readonly WorkingResource[],
  type: string,
  interval: Interval,
  units = 1,
  combine = false,
): Requirement {
  const candidates = candidatesFor(resources, type, interval);
  return combine ? { type, candidates, units, combine } : { type, candidates, units };
}
