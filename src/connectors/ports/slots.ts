/**
 * The slot source capability (platforms): the platform's own free starts in a range. The
 * gateway emulates holds on top, because no platform has a hold primitive (SchCP §10).
 */
import type { Interval } from "../../calendar/index.js";
import type { ConnectorResult } from "./result.js";

export interface AvailabilityQuery {
  readonly serviceId: string;
  readonly range: Interval;
  readonly resourceIds?: readonly string[];
  readonly partySize?: number;
}

/** A free start the platform reports, with the resources free to serve it. */
export interface UpstreamSlot {
  readonly serviceId: string;
  readonly start: number;
  /** End of the service itself (no buffer); absent for an open-ended service. */
  readonly end?: number;
  readonly resourceIds: readonly string[];
}

export interface SlotSource {
  find(query: AvailabilityQuery): Promise<ConnectorResult<readonly UpstreamSlot[]>>;
}
