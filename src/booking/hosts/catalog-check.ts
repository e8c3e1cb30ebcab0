/**
 * The checks a catalog must pass against the host's configuration (runtime.ts lists them):
 * at start a failure is a configuration error naming the field; at a later refresh the new
 * catalog is not taken and the host is degraded (refresh.ts).
 */
import type { Catalog } from "../../connectors/port.js";
import { err, fieldError, ok, type FieldError, type Result } from "../../protocol/result.js";
import type { HostConfig } from "../api.js";

const problem = (code: string, field: string, hostId: string, why: string): Result<never, FieldError> =>
  err(fieldError(code, field, `host ${hostId}: ${field}: ${why}`));

export function checkAgainstCatalog(config: HostConfig, catalog: Catalog): Result<void, FieldError> {
  const id = config.id;
  if (catalog.organization.timezone !== config.timezone) {
    return problem(
      "zone_mismatch",
      "/timezone",
      id,
      `is ${config.timezone}, but the upstream location's hours are in ${catalog.organization.timezone}`,
    );
  }
  for (const service of catalog.services) {
    for (const fee of service.fees ?? []) {
      if (service.price === undefined || fee.amount.currency !== service.price.currency) {
        return problem(
          "catalog_invalid",
          "/connector",
          id,
          `upstream service ${service.id} states a fee without a price in its currency`,
        );
      }
    }
  }
  for (const [i, rules] of config.services.entries()) {
    const at = `/services/${i}`;
    const service = catalog.services.find((s) => s.id === rules.serviceId);
    if (service === undefined) {
      return problem(
        "unknown_service",
        `${at}/service_id`,
        id,
        `the upstream has no service "${rules.serviceId}"`,
      );
    }
    for (const [j, s] of (rules.surcharges ?? []).entries()) {
      if (service.price === undefined) {
        return problem(
          "unpriced_surcharge",
          `${at}/surcharges/${j}`,
          id,
          "a service with no price states no surcharge",
        );
      }
      if (s.amount !== undefined && s.amount.currency !== service.price.currency) {
        return problem(
          "currency_mismatch",
          `${at}/surcharges/${j}/amount/currency`,
          id,
          `must be ${service.price.currency}, the price's currency`,
        );
      }
    }
  }
  for (const [i, r] of (config.policies.walkInReserve ?? []).entries()) {
    if (!catalog.resources.some((res) => res.type === r.resourceType)) {
      return problem(
        "unknown_resource_type",
        `/policies/walk_in_reserve/${i}/resource_type`,
        id,
        `the upstream has no "${r.resourceType}"`,
      );
    }
  }
  return ok(undefined);
}
