/**
 * buildHostRuntime: a configured host with its live pieces. Reads the catalog from the
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
 *
 * An upstream that does not answer at start is not a configuration error: the host starts
 * degraded (or needs_reconnection on `unauthorized`) with no catalog, the other hosts serve,
 * and the refresh job reads it later (health.ts, refresh.ts). The connector is wrapped so
 * every failure reaches the host's health (watched-connector.ts).
 */
import type { Catalog, Connector } from "../../connectors/port.js";
import { err, fieldError, ok, type FieldError, type Result } from "../../protocol/result.js";
import { type Clock, systemClock } from "../../protocol/clock.js";
import { noMetrics, type Metrics } from "../../protocol/metrics.js";
import type { HostConfig, HostKey, HostRuntime } from "../api.js";
import { DEFAULT_HEALTH_POLICY, HostHealth } from "./health.js";
import type { HealthListener, HostHealthPolicy } from "./health.js";
import { checkCapabilities } from "./capabilities.js";
import { checkAgainstCatalog } from "./catalog-check.js";
import { catalogRefresher } from "./refresh.js";
import { watchConnector } from "./watched-connector.js";

export interface HostRuntimeOptions {
  /** Health timestamps and due reads (default the system clock). */
  readonly clock?: Clock;
  readonly healthPolicy?: HostHealthPolicy;
  /** Hears every health transition, the first (at start) included. */
  readonly onHealth?: HealthListener;
  /** A calendar host's read horizon (HostRuntime.availabilityKnownUntil). */
  readonly availabilityKnownUntil?: () => Promise<number | undefined>;
  /** Counts the host's upstream calls (watched-connector.ts); nothing is counted when absent. */
  readonly metrics?: Metrics;
}

const problem = (code: string, field: string, hostId: string, why: string): Result<never, FieldError> =>
  err(fieldError(code, field, `host ${hostId}: ${field}: ${why}`));

export async function buildHostRuntime(
  config: HostConfig,
  connector: Connector,
  keys: readonly HostKey[],
  options: HostRuntimeOptions = {},
): Promise<Result<HostRuntime, FieldError>> {
  const id = config.id;
  if (keys.length === 0) return problem("no_keys", "/keys", id, "a host needs a signing key");
  if (new Set(keys.map((k) => k.kid)).size !== keys.length) {
    return problem("duplicate_kid", "/keys", id, "every key needs its own kid");
  }
  const capable = checkCapabilities(id, connector, config.services.length > 0);
  if (!capable.ok) return capable;
  const health = new HostHealth(
    id,
    options.clock ?? systemClock,
    options.healthPolicy ?? DEFAULT_HEALTH_POLICY,
  );
  if (options.onHealth !== undefined) health.onTransition(options.onHealth);
  const watched = watchConnector(capable.value, health, {
    metrics: options.metrics ?? noMetrics,
    vendor: capable.value.platform.vendor,
  });
  const read = await watched.catalog.read();
  if (read.ok) {
    // At start a catalog that does not fit is the configuration's fault: refuse to start.
    const checked = checkAgainstCatalog(config, read.value);
    if (!checked.ok) return checked;
    health.catalogRead(read.value);
  }
  const empty = emptyCatalog(config);
  const refreshCatalog = catalogRefresher(config, watched, health);
  return ok({
    config,
    connector: watched,
    get catalog(): Catalog {
      return health.catalog ?? empty;
    },
    keys: [...keys],
    health,
    refreshCatalog,
    ...(options.availabilityKnownUntil !== undefined && {
      availabilityKnownUntil: options.availabilityKnownUntil,
    }),
  });
}

/** What a host offers before its catalog was ever read: nothing. */
function emptyCatalog(config: HostConfig): Catalog {
  return {
    organization: { id: config.id, name: config.name, timezone: config.timezone },
    services: [],
    resources: [],
    taxes: [],
  };
}

export { checkAgainstCatalog };
