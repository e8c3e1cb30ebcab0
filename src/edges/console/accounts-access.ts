/**
 * Which hosts a console viewer may see and change, by managed-hosts.ts's one rule (mayManage): the
 * operator every host; an owner only hosts whose managed record names them. A host from the
 * config file has no record and so belongs to the operator. Without managed hosts at all, an
 * owner manages nothing.
 */
import { mayManage, type ConsoleViewer, type ManagedHostRecord, type ManagedHosts } from "./managed-hosts.js";

export async function requireHostAccess(
  managedHosts: ManagedHosts | undefined,
  viewer: ConsoleViewer,
  hostId: string,
): Promise<boolean> {
  if (viewer.kind === "operator") return true;
  return mayManage(viewer, await managedHosts?.store.get(hostId));
}

/**
 * The managed records a viewer's pages show: an owner's own only, read through the store's
 * per-owner index (the cost does not grow with other owners' records); every one for the operator.
 */
export async function viewerRecords(
  managedHosts: ManagedHosts | undefined,
  viewer: ConsoleViewer,
): Promise<ManagedHostRecord[]> {
  if (managedHosts === undefined) return [];
  return viewer.kind === "owner"
    ? (await managedHosts.store.listOwnedBy(viewer.ownerId)).filter((r) => mayManage(viewer, r))
    : managedHosts.store.list();
}
