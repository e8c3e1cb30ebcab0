/**
 * Reading a request's service and chosen resource against a host's catalog, and mapping
 * upstream failures, shared by availability and holds.
 */
import type { CatalogResource, CatalogService } from "../../connectors/port.js";
import { err, ok, type Result } from "../../protocol/result.js";
import type { BookingRefusal, HostRuntime, ServiceRules } from "../api.js";
import { bookingRefusal, notFound } from "../rules/index.js";

export interface ServiceLookup {
  readonly service: CatalogService;
  readonly rules: ServiceRules | undefined;
}

export function findService(runtime: HostRuntime, serviceId: string): Result<ServiceLookup, BookingRefusal> {
  const service = runtime.catalog.services.find((s) => s.id === serviceId);
  if (service === undefined) return err(notFound(`service ${serviceId}`));
  return ok({ service, rules: runtime.config.services.find((r) => r.serviceId === serviceId) });
}

/**
 * §4.1: "Resources are internal ... unless the service lets the guest choose a resource
 * (selectable: true)". A resource named for any other service, or one the service cannot use,
 * is 400 INVALID_REQUEST.
 */
export function findChosenResource(
  runtime: HostRuntime,
  found: ServiceLookup,
  resourceId: string | null | undefined,
): Result<CatalogResource | undefined, BookingRefusal> {
  if (resourceId === undefined || resourceId === null) return ok(undefined);
  if (found.rules?.selectable !== true) {
    return err(
      bookingRefusal("invalid_request", {
        message: "this service does not let the guest choose a resource",
        basis: { policy: "selectable", selectable: false },
      }),
    );
  }
  const types = new Set(found.service.requires.map((r) => r.resourceType));
  const resource = runtime.catalog.resources.find((r) => r.id === resourceId && types.has(r.type));
  if (resource === undefined) {
    return err(
      bookingRefusal("invalid_request", {
        message: `this service has no resource ${resourceId} to choose`,
        basis: { policy: "selectable" },
      }),
    );
  }
  return ok(resource);
}

/** The one upstream-error mapping lives with the other refusals (bookings/refuse.ts). */
export { upstreamRefusal } from "../bookings/refuse.js";
