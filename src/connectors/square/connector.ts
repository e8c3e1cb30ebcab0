/**
 * The Square connector (kind "platform": catalog + slots + bookings), built from a host's
 * settings and the I/O the integrator passes in. Host configuration names it `"type": "square"`.
 */
import type { BookingPort, CatalogSource, Connector, SlotSource } from "../port.js";
import type { FieldError } from "../../protocol/result.js";
import { searchAvailability, slotsOf } from "./availability.js";
import { squareBookings } from "./bookings.js";
import { readCatalog } from "./catalog.js";
import { SquareApi, type SquareDeps } from "./client.js";
import { validateSquareSettings } from "./settings.js";

export interface SquareConnector extends Connector {
  readonly kind: "platform";
  readonly catalog: CatalogSource;
  readonly slots: SlotSource;
  readonly bookings: BookingPort;
}

/** Settings that did not validate: `field` names the member, the message says what it must be. */
export class SquareSettingsError extends TypeError {
  constructor(readonly problem: FieldError) {
    super(`invalid Square settings at ${problem.field || "/"}: ${problem.message}`);
    this.name = "SquareSettingsError";
  }
}

/** Throws SquareSettingsError for invalid settings (check host configuration at start). */
export function createSquareConnector(settings: unknown, deps: SquareDeps): SquareConnector {
  const valid = validateSquareSettings(settings, deps.tokenProvider !== undefined);
  if (!valid.ok) throw new SquareSettingsError(valid.error);
  const api = new SquareApi(valid.value, deps);
  const { locationId } = valid.value;
  return {
    kind: "platform",
    platform: api.platform,
    catalog: {
      read: () =>
        api.call(`GET /v2/locations/${locationId}`, (client) =>
          readCatalog(client, locationId, valid.value.paymentRequirement),
        ),
    },
    slots: {
      find: (query) =>
        api.call("POST /v2/bookings/availability/search", async (client) =>
          slotsOf(
            query.serviceId,
            await searchAvailability(client, locationId, query, api.now(), () => api.lastAnswerTooLarge()),
          ),
        ),
    },
    bookings: squareBookings(api),
  };
}
