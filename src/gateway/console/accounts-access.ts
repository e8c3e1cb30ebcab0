/**
 * Which hosts a console viewer may see and change, by port.ts's one rule (mayManage): the
 * operator every host; an owner only hosts whose managed record names them. A host from the
 * config file has no record and so belongs to the operator. Without managed hosts at all, an
 * owner manages nothing.
 */
import { mayManage, type ConsoleViewer, type ManagedHosts } from "../managed-hosts/port.js";

export async function requireHostAccess(
  managedHosts: ManagedHosts | undefined,
  viewer: ConsoleViewer,
  hostId: string,
): Promise<boolean> {
  if (viewer.kind === "operator") return true;
  return mayManage(viewer, await managedHosts?.store.get(hostId));
}

/** The ids among `hostIds` the viewer may see (one store read for an owner, none for the operator). */
export async function visibleHostIds(
  managedHosts: ManagedHosts | undefined,
  viewer: ConsoleViewer,
  hostIds: readonly string[],
): Promise<ReadonlySet<string>> {
  if (viewer.kind === "operator") return new Set(hostIds);
  const records = new Map((await managedHosts?.store.list())?.map((r) => [r.id, r]) ?? []);
  return new Set(hostIds.filter((id) => mayManage(viewer, records.get(id))));
}
