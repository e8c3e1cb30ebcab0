/**
 * The in-process BookingIndex (api.ts): booking ids per host, newest first. The embedded
 * default's store is in this process too, so it sees every booking there; a multi-process
 * deployment wants one kept beside the shared store.
 */
import type { BookingIndex } from "../api.js";

export class MemoryBookingIndex implements BookingIndex {
  private readonly byHost = new Map<string, Array<{ id: string; at: number }>>();

  add(hostId: string, bookingId: string, createdAt: number): Promise<void> {
    const list = this.byHost.get(hostId) ?? [];
    if (!list.some((e) => e.id === bookingId)) list.push({ id: bookingId, at: createdAt });
    this.byHost.set(hostId, list);
    return Promise.resolve();
  }

  list(hostId: string, limit: number): Promise<readonly string[]> {
    const list = [...(this.byHost.get(hostId) ?? [])].sort((a, b) => b.at - a.at || (a.id < b.id ? 1 : -1));
    return Promise.resolve(list.slice(0, Math.max(0, limit)).map((e) => e.id));
  }
}
