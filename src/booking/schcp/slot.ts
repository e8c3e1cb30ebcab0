/**
 * A start as a SchCP availability slot (§5.1), priced at that time (§5.1: "A slot's total is
 * the stated all-in price, including any surcharge that applies at that time"): the upstream's
 * stated total there when it states one.
 */
import { toSchcpMoney, type Money } from "../../protocol/money/index.js";
import type { Slot } from "../../protocol/schcp/types.js";
import type { HostRuntime } from "../api.js";
import type { ServiceLookup } from "../holds/index.js";
import { priceOffer } from "../pricing/index.js";
import { zoneView, type ZoneView } from "../rules/index.js";

export function slotAt(
  runtime: HostRuntime,
  found: ServiceLookup,
  start: number,
  partySize: number,
  now: number,
  view: ZoneView = zoneView(runtime.config.timezone),
  stated?: Money,
): Slot {
  const { service, rules } = found;
  const tz = runtime.config.timezone;
  const priced = priceOffer(
    service,
    rules,
    { timezone: tz, taxes: runtime.catalog.taxes, view },
    stated === undefined ? { start, partySize, now } : { start, partySize, now, stated },
  );
  // Built without spreads (an availability answer writes up to 3,000), in the wire's key order.
  const slot: Slot =
    service.duration === "open"
      ? { start: view.format(start), open_end: true }
      : { start: view.format(start), end: view.format(start + service.duration) };
  if (priced.price !== null && priced.total !== null) {
    slot.price = toSchcpMoney(priced.price);
    slot.total = toSchcpMoney(priced.total);
  }
  return slot;
}
