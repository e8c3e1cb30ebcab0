/**
 * Catalog refresh: read a host's catalog again, check it against the configuration as at
 * start, and tell the host's health. A catalog that reads but no longer fits (a configured
 * service gone upstream, the location's zone changed) is not taken: the previous one stays
 * in use and the host is degraded with the reason, so a platform edit never turns into
 * offers the host could not sign. The read goes through the watched connector, so a failure
 * reaches HostHealth there (degraded, or needs_reconnection on `unauthorized`).
 *
 * One read per host at a time: a refresh asked for while one runs (the job and an operator
 * at once) shares it.
 */
import type { Catalog, PlatformConnector } from "../../connectors/port.js";
import type { HostConfig, HostDirectory } from "../api.js";
import type { HostHealth, HostHealthStatus } from "./health.js";
import { checkAgainstCatalog } from "./catalog-check.js";

export type CatalogRefresh = () => Promise<HostHealthStatus>;

export function catalogRefresher(
  config: HostConfig,
  connector: Pick<PlatformConnector, "catalog">,
  health: HostHealth,
): CatalogRefresh {
  let running: Promise<HostHealthStatus> | undefined;
  const once = async (): Promise<HostHealthStatus> => {
    const read = await connector.catalog.read();
    if (read.ok) accept(config, read.value, health);
    return health.status();
  };
  return () =>
    (running ??= once().finally(() => {
      running = undefined;
    }));
}

function accept(config: HostConfig, catalog: Catalog, health: HostHealth): void {
  const checked = checkAgainstCatalog(config, catalog);
  if (checked.ok) health.catalogRead(catalog);
  else health.catalogRejected(checked.error.message);
}

/**
 * The refresh job's run: every host whose next read is due, concurrently (a host whose
 * upstream hangs does not hold up the others). Returns the ids refreshed.
 */
export async function refreshDueCatalogs(hosts: HostDirectory, now: number): Promise<string[]> {
  const due: Array<{ id: string; refresh: CatalogRefresh }> = [];
  for (const h of hosts.list()) {
    if (h.refreshCatalog !== undefined && h.health?.due(now) === true)
      due.push({ id: h.config.id, refresh: h.refreshCatalog });
  }
  await Promise.all(due.map((h) => h.refresh()));
  return due.map((h) => h.id);
}
