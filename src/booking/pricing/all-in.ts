/**
 * The all-in amount of one booking of a service for one person at a host (SchCP §5.2 "The
 * all-in total": the service line, its mandatory fees, surcharges that apply at `start`, and the
 * host's taxes), as priceOffer computes it for the offer the business records. Every edge that
 * shows an amount before booking (A2A's `price`, OSBP's slot price and approval summary) shows
 * this one, so the total a guest approves is the total the business records. Without a start,
 * time-dependent surcharges are left out. `stated` is the upstream's own total at that start
 * (UpstreamSlot.total, carried by the core's openings): when usable it is the amount
 * (price-offer.ts says why nothing is added to it).
 */
import type { HostRuntime } from "../api.js";
import type { CatalogService } from "../../connectors/port.js";
import type { Money } from "../../protocol/money/index.js";
import { priceOffer } from "./price-offer.js";

export function allInPrice(
  host: Pick<HostRuntime, "config" | "catalog">,
  service: CatalogService,
  now: number,
  start?: number,
  stated?: Money,
): Money | undefined {
  const rules =
    start === undefined ? undefined : host.config.services.find((r) => r.serviceId === service.id);
  const priced = priceOffer(
    service,
    rules,
    { timezone: host.config.timezone, taxes: host.catalog.taxes },
    {
      start: start ?? now,
      partySize: 1,
      now,
      ...(start !== undefined && stated !== undefined && { stated }),
    },
  );
  return priced.total ?? undefined;
}
