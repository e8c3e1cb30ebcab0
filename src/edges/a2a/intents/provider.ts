/**
 * The spec's "provider" (A2A §2, §3) is the resource a service binds: its staff member when it
 * has one (CatalogResource.staff), else the first resource of a type the service requires (a
 * bay). "Defaults to first assigned provider": availability and booking without providerId
 * both use the first, so what is shown is what is booked.
 */
import type { HostRuntime } from "../../../booking/api.js";
import type { CatalogResource, CatalogService } from "../../../booking/catalog.js";

function providersOf(host: HostRuntime, service: CatalogService): readonly CatalogResource[] {
  const types = new Set(service.requires.map((r) => r.resourceType));
  const usable = host.catalog.resources.filter((r) => types.has(r.type));
  const staff = usable.filter((r) => r.staff === true);
  return staff.length > 0 ? staff : usable;
}

/** The named provider when it serves the service, the first one when none is named. */
export function resolveProvider(
  host: HostRuntime,
  service: CatalogService,
  providerId: unknown,
): CatalogResource | undefined {
  const all = providersOf(host, service);
  if (providerId === undefined || providerId === null || providerId === "") return all[0];
  return all.find((r) => r.id === providerId);
}

export const providerJson = (r: CatalogResource) => ({ id: r.id, name: r.name });
