/**
 * buildHostRuntime: a configured host with its live pieces. Reads the catalog once from the
 * connector and checks that the config and the catalog agree, so an offer the host could
 * never sign (§5.2 money rules) is a startup error naming the field, not a failed hold:
 *
 * - at least one signing key, kids unique (§2.1 "each with a kid unique in the document");
 * - the host's zone is the upstream location's (its hours are read in that zone);
 * - every ServiceRules.serviceId is a catalog service;
 * - surcharges only on priced services, in the price's currency (§5.2 "A host that states
 *   fees, surcharges or a per-person price MUST state a price"); the catalog's own fees too;
 * - walk-in reserves name a resource type the catalog has (§7.2);
 * - the connector has the capabilities the host needs (capabilities.ts), before any upstream call.
 */
import type { Catalog, Connector } from "../../connectors/port.js";
import { err, fieldError, ok, type FieldError, type Result } from "../../protocol/result.js";
import type { HostSigningKey } from "../../protocol/schcp/offer/index.js";
import type { HostConfig, HostRuntime } from "../api.js";
import { checkCapabilities } from "./capabilities.js";

const problem = (code: string, field: string, hostId: string, why: string): Result<never, FieldError> =>
  err(fieldError(code, field, `host ${hostId}: ${field}: ${why}`));

export async function buildHostRuntime(
  config: HostConfig,
  connector: Connector,
  keys: readonly HostSigningKey[],
): Promise<Result<HostRuntime, FieldError>> {
  const id = config.id;
  if (keys.length === 0) return problem("no_keys", "/keys", id, "a host needs a signing key");
  if (new Set(keys.map((k) => k.kid)).size !== keys.length) {
    return problem("duplicate_kid", "/keys", id, "every key needs its own kid");
  }
  const capable = checkCapabilities(id, connector, config.services.length > 0);
  if (!capable.ok) return capable;
  const read = await capable.value.catalog.read();
  if (!read.ok) {
    return problem(
      "catalog_unavailable",
      "/connector",
      id,
      `the upstream catalog could not be read: ${read.error.message}`,
    );
  }
  const checked = checkAgainstCatalog(config, read.value);
  return checked.ok
    ? ok({ config, connector: capable.value, catalog: read.value, keys: [...keys] })
    : checked;
}

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
