/**
 * Servicialo / Coordinalo as a platform connector (specs/servicialo-a2a-v1.2.0.md, REST under
 * /api/servicialo/{orgSlug}, "the recommended integration path for structured agents"):
 * catalog from list_services, slots from check_availability, bookings through book_session,
 * cancel_session and reschedule_session. No verification capability: Servicialo has none.
 *
 * What the REST API does not have, and what the connector does instead (README.md here):
 * - no readback of a session (no GET, no search): get and findByIdempotencyKey answer from what
 *   this process was told (CreateJournal), with the telling call's metadata marked a replay; a
 *   create whose answer was lost (or an attempt handed back by the caller) is checked against
 *   availability (the attempted start still free: nothing was booked; taken: outcome unknown);
 * - no idempotent create: one create per key in flight; the platform's own double-booking
 *   check (409 SLOT_CONFLICT for the same provider and time) is what stops a second booking
 *   when a process retries after losing an answer.
 */
import type { Connector } from "../port.js";
import type { BookingPort } from "../ports/bookings.js";
import type { CatalogSource } from "../ports/catalog.js";
import type { ConnectorResult } from "../ports/result.js";
import type { SlotSource, UpstreamSlot } from "../ports/slots.js";
import { availability, findSlots, nextSlots } from "./availability.js";
import { servicialoBookings } from "./bookings.js";
import { readCatalog } from "./catalog.js";
import { createServicialoContext, type ServicialoDeps } from "./context.js";
import { SERVICIALO_PLATFORM } from "./platform.js";
import { parseServicialoSettings, type ServicialoSettings } from "./settings.js";

export { SERVICIALO_PLATFORM } from "./platform.js";
export type { ServicialoDeps } from "./context.js";

export interface ServicialoConnector extends Connector {
  readonly kind: "platform";
  readonly catalog: CatalogSource;
  readonly slots: SlotSource;
  readonly bookings: BookingPort;
  /** Single-day mode: the day's free starts, and the platform's reason when there are none. */
  day(
    serviceId: string,
    date: string,
    providerId?: string,
  ): Promise<ConnectorResult<{ readonly slots: readonly UpstreamSlot[]; readonly reason?: string }>>;
  /** Next-N mode: the next `n` (1-50) free starts. */
  next(serviceId: string, n: number, providerId?: string): Promise<ConnectorResult<readonly UpstreamSlot[]>>;
}

/**
 * The modules: context.ts (the upstream client, its one retry, what answers told), catalog.ts,
 * availability.ts, bookings.ts (create.ts, lost-create.ts, reschedule.ts, cancel.ts,
 * sessions.ts) and errors.ts.
 */
export function createServicialoConnector(
  rawSettings: unknown,
  deps: ServicialoDeps = {},
): ServicialoConnector {
  const parsed = parseServicialoSettings(rawSettings);
  if (!parsed.ok)
    throw new Error(`servicialo settings ${parsed.error.field || "/"}: ${parsed.error.message}`);
  const settings: ServicialoSettings = parsed.value;
  const ctx = createServicialoContext(settings, deps);
  return {
    platform: SERVICIALO_PLATFORM,
    kind: "platform",
    catalog: { read: () => readCatalog(ctx) },
    slots: { find: (query) => findSlots(ctx, query) },
    bookings: servicialoBookings(ctx),
    async day(serviceId, date, providerId) {
      return availability(ctx, serviceId, { date }, providerId);
    },
    next: (serviceId, n, providerId) => nextSlots(ctx, serviceId, n, providerId),
  };
}
