/**
 * Which connector capabilities a host needs, checked once at start with a message naming the
 * host's connector field (src/connectors/port.ts lists the capabilities):
 *
 * - a platform host (the upstream computes availability and keeps bookings): catalog, slots and
 *   bookings;
 * - a calendar host (availability is working hours minus busy time): calendar sync and event
 *   writes, and its services from the catalog or, since a calendar has none, from the host's
 *   configured services.
 *
 * Verification is never required: a platform without it answers OSBP verification as
 * unsupported.
 */
import {
  abilitiesOf,
  capabilitiesOf,
  hasCapabilities,
  type Capability,
  type Connector,
  type PlatformConnector,
} from "../../connectors/port.js";
import type { HostRuntime } from "../api.js";
import type { BookingAbilities } from "../upstream.js";
import { err, fieldError, ok, type FieldError, type Result } from "../../protocol/result.js";

const PLATFORM_NEEDS: readonly Capability[] = ["catalog", "slots", "bookings"];
const CALENDAR_NEEDS: readonly Capability[] = ["calendar", "events"];

/** The capabilities a host of this connector kind needs and the connector lacks. */
export function missingCapabilities(connector: Connector, configuredServices: boolean): Capability[] {
  const needs =
    connector.kind === "platform"
      ? PLATFORM_NEEDS
      : configuredServices
        ? CALENDAR_NEEDS
        : [...CALENDAR_NEEDS, "catalog" as const];
  return needs.filter((c) => connector[c] === undefined);
}

/**
 * The connector as the booking core uses it, or the refusal at `/connector` (relative to the
 * host; the gateway prefixes "/hosts/N"). The booking core drives platform hosts only so far,
 * and a calendar host is driven through it once src/booking/calendar wrapped it.
 */
export function checkCapabilities(
  hostId: string,
  connector: Connector,
  configuredServices: boolean,
): Result<PlatformConnector, FieldError> {
  const field = "/connector";
  const missing = missingCapabilities(connector, configuredServices);
  const vendor = connector.platform.vendor;
  if (missing.length > 0) {
    const has = capabilitiesOf(connector);
    const need =
      connector.kind === "platform"
        ? "a platform host needs catalog, slots and bookings"
        : "a calendar host needs calendar sync and event writes, and a catalog unless the host configures its services";
    return err(
      fieldError(
        "missing_capability",
        field,
        `host ${hostId}: ${field}: the ${vendor} ${connector.kind} connector lacks ${missing.join(", ")} ` +
          `(it has ${has.length === 0 ? "none" : has.join(", ")}); ${need}`,
      ),
    );
  }
  // A calendar host reaches the core through src/booking/calendar, which gives it the
  // platform path (catalog from its configuration, starts from synced busy time, bookings as
  // its own events); a bare calendar connector means that step was skipped.
  if (!hasCapabilities(connector, ["catalog", "slots", "bookings"])) {
    return err(
      fieldError(
        "unsupported_connector_kind",
        field,
        `host ${hostId}: ${field}: the ${vendor} connector is a calendar; a calendar host needs its calendar section (capacity, hours, services, approver)`,
      ),
    );
  }
  return ok(connector);
}

/** What the host's platform can do with a booking (move, cancel, read back), as it declares. */
export const bookingAbilitiesOf = (host: HostRuntime): BookingAbilities =>
  abilitiesOf(host.connector.bookings);
