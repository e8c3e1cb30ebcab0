/**
 * A start as a SchCP availability slot (§5.1), priced at that time (§5.1: "A slot's total is
 * the stated all-in price, including any surcharge that applies at that time"): the upstream's
 * stated total there when it states one.
 */
import { toSchcpMoney, type Money } from "../../protocol/money/index.js";
import type { Slot } from "../../protocol/schcp/types.js";
import type { HostRuntime } from "../../booking/api.js";
import { alternativeAt, type ServiceLookup } from "../../booking/holds/index.js";
import { zoneView, type ZoneView } from "../../booking/rules/index.js";

/** The core's priced start (holds/alternatives.ts alternativeAt), in the wire's words. */
export function slotAt(
  runtime: HostRuntime,
  found: ServiceLookup,
  start: number,
  partySize: number,
  now: number,
  view: ZoneView = zoneView(runtime.config.timezone),
  stated?: Money,
): Slot {
  const at = alternativeAt(runtime, found, start, partySize, now, view, stated);
  // Built without spreads (an availability answer writes up to 3,000), in the wire's key order.
  const slot: Slot =
    at.end === undefined
      ? { start: view.format(start), open_end: true }
      : { start: view.format(start), end: view.format(at.end) };
  if (at.price !== null && at.total !== null) {
    slot.price = toSchcpMoney(at.price);
    slot.total = toSchcpMoney(at.total);
  }
  return slot;
}
