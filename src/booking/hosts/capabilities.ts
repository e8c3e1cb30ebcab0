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
  capabilitiesOf,
  hasCapabilities,
  type Capability,
  type Connector,
  type PlatformConnector,
} from "../../connectors/port.js";
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
 * so a calendar host with every capability is still refused, saying so.
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
  if (connector.kind !== "platform" || !hasCapabilities(connector, ["catalog", "slots", "bookings"])) {
    return err(
      fieldError(
        "unsupported_connector_kind",
        field,
        `host ${hostId}: ${field}: the ${vendor} connector is a calendar; this gateway books on platform hosts only so far`,
      ),
    );
  }
  return ok(connector);
}
