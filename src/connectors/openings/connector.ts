/**
 * Openings (the salon platform behind OSBP's one external adapter) as a platform connector:
 * catalog from the business, its location and that location's members and services (with
 * options), slots from each member's openings per date, bookings through customer
 * create-or-find and appointment create (with the raw verification code; HTTP 428 is
 * verification_required), verification send/verify with purpose `booking:{businessId}`.
 *
 * Assumptions (README.md here; fixtures/openings/SOURCES.md):
 * - prices are major units without a currency: the host's configured currency is applied and
 *   the amount scaled by its ISO 4217 exponent (fromMajorUnits), never by a fixed 100;
 * - openings are local "HH:MM" times: placed in time with the business's zone; a business with
 *   a null zone and no zone from the operator gets no instants (unsupported), never a guess;
 * - the public API takes no cancel or move and has no by-id readback: move/cancel/setStatus
 *   answer unsupported, get answers what this process was told, and a create whose answer was
 *   lost is looked up in the customer's history (gated behind verification: only when the
 *   create carried a code) or else checked against the member's openings.
 * - a verification code is scoped to the business (purpose booking:{businessId}), not to one
 *   booking attempt (OSBP "Attempt-scoped capabilities"): it stays usable for its TTL.
 */
import type { Connector } from "../port.js";
import type { BookingPort } from "../ports/bookings.js";
import type { CatalogSource } from "../ports/catalog.js";
import type { ConnectorResult } from "../ports/result.js";
import type { SlotSource, UpstreamSlot } from "../ports/slots.js";
import type { VerificationPort } from "../ports/verification.js";
import { openingsBookings } from "./bookings.js";
import { readCatalog } from "./catalog.js";
import { createOpeningsContext, type OpeningsDeps } from "./context.js";
import { OPENINGS_PLATFORM } from "./platform.js";
import { createSalonSource } from "./salon.js";
import { parseOpeningsSettings, type OpeningsSettings } from "./settings.js";
import { findSlots, nextAvailable } from "./slots.js";
import { openingsVerification } from "./verification.js";

export type { OpeningsDeps } from "./context.js";

export interface OpeningsConnector extends Connector {
  readonly kind: "platform";
  readonly catalog: CatalogSource;
  readonly slots: SlotSource;
  readonly bookings: BookingPort;
  readonly verification: VerificationPort;
  /** The location's next free start for a service (Openings "next availability"), or null. */
  nextAvailable(serviceId: string): Promise<ConnectorResult<UpstreamSlot | null>>;
}

/**
 * The modules: context.ts (the upstream client), salon.ts (the business and location, read
 * once), catalog.ts, slots.ts, bookings.ts (create.ts, lost-create.ts, appointments.ts) and
 * verification.ts.
 */
export function createOpeningsConnector(rawSettings: unknown, deps: OpeningsDeps = {}): OpeningsConnector {
  const parsed = parseOpeningsSettings(rawSettings);
  if (!parsed.ok) throw new Error(`openings settings ${parsed.error.field || "/"}: ${parsed.error.message}`);
  const settings: OpeningsSettings = parsed.value;
  const api = createOpeningsContext(settings, deps);
  const salons = createSalonSource(api);
  return {
    platform: OPENINGS_PLATFORM,
    kind: "platform",
    catalog: { read: () => readCatalog(settings, salons) },
    slots: { find: (query) => findSlots(api, salons, query) },
    bookings: openingsBookings(api, salons),
    verification: openingsVerification(api, salons),
    nextAvailable: (id) => nextAvailable(api, salons, id),
  };
}
