/**
 * §4.1: "A service states party_size: {min, max}; a request outside it is 400
 * INVALID_REQUEST" (reason party_size, the gateway's own registration). A service that
 * states no range takes any party its resources can: the largest party the catalog's
 * resources could ever seat is refused the same way, before anything is asked upstream, so
 * an impossible party is a 400 the agent cannot retry, never an upstream failure.
 */
import type { CatalogResource, CatalogService } from "../../connectors/port.js";
import type { BookingRefusal, ServiceRules } from "../api.js";
import { bookingRefusal } from "./refusal.js";

/**
 * The largest party the service's resources could take at once (§4.1 units): a combined
 * requirement adds its type's capacities; a type with shared capacity (some resource above
 * one) seats at most its largest resource's capacity; a type of capacity-one resources (a
 * bay, a chair) serves the whole party with one unit, so it sets no bound. undefined: none.
 */
export function partyCapacity(
  service: Pick<CatalogService, "requires">,
  resources: readonly Pick<CatalogResource, "type" | "capacity">[],
): number | undefined {
  let bound: number | undefined;
  for (const r of service.requires) {
    const ofType = resources.filter((x) => x.type === r.resourceType);
    let cap: number | undefined;
    if (r.combine === true) cap = ofType.reduce((sum, x) => sum + x.capacity, 0);
    else if (ofType.some((x) => x.capacity > 1)) cap = Math.max(...ofType.map((x) => x.capacity));
    if (cap !== undefined) bound = bound === undefined ? cap : Math.min(bound, cap);
  }
  return bound;
}

export function checkPartySize(
  range: ServiceRules["partySize"],
  partySize: number,
  capacity?: number,
): BookingRefusal | undefined {
  const basis =
    range === undefined ? { policy: "party_size" } : { policy: "party_size", min: range.min, max: range.max };
  if (!Number.isSafeInteger(partySize) || partySize < 1) {
    return bookingRefusal("invalid_request", {
      reason: "party_size",
      message: "party_size is a whole number of people, at least 1",
      basis,
    });
  }
  if (range !== undefined && (partySize < range.min || partySize > range.max)) {
    return bookingRefusal("invalid_request", {
      reason: "party_size",
      message: `this service takes parties of ${range.min} to ${range.max}`,
      basis,
    });
  }
  if (capacity !== undefined && partySize > capacity) {
    return bookingRefusal("invalid_request", {
      reason: "party_size",
      message: `this service's resources take parties of at most ${capacity}`,
      basis: { policy: "party_size", max: Math.min(capacity, range?.max ?? capacity) },
    });
  }
  return undefined;
}
