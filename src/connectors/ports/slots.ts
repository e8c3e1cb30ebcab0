/**
 * The slot source capability (platforms): the platform's own free starts in a range. The
 * gateway emulates holds on top, because no platform has a hold primitive (SchCP §10).
 */
import type { Interval } from "../../calendar/index.js";
import type { Money } from "../../protocol/money/index.js";
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
  /**
   * The all-in total of one booking at this start (the query's party), as the upstream states
   * it: what the business will record, taxes and surcharges included. Only a platform that
   * states one sets it (a Servicialo upstream's per-slot `price`); the gateway then quotes
   * exactly this amount (booking/pricing/price-offer.ts). Absent: the gateway prices the start.
   */
  readonly total?: Money;
}

export interface SlotSource {
  find(query: AvailabilityQuery): Promise<ConnectorResult<readonly UpstreamSlot[]>>;
}
