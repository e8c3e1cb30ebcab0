/**
 * TEST DOUBLE of the ManagedHosts port (src/gateway/managed-hosts/port.ts): records in the real
 * memory store,
 * activate checks the entry with the booking core's parsers (as the real one does, minus building
 * the connector) and stores it active. The real implementation replaces it at merge.
 */
import { parseCalendarSection } from "../../src/booking/calendar/config.js";
import { parseHostsConfig } from "../../src/booking/hosts/index.js";
import { MemoryManagedHostStore } from "../../src/gateway/managed-hosts/memory-store.js";
import type { ManagedHosts } from "../../src/edges/console/managed-hosts.js";
import { err, fieldError, ok } from "../../src/protocol/result.js";

export function memoryManagedHosts(configHostIds: readonly string[] = []): ManagedHosts & {
  readonly activated: string[];
} {
  const store = new MemoryManagedHostStore();
  const activated: string[] = [];
  return {
    store,
    activated,
    async activate(record, ifUpdatedAt) {
      const parsed = parseHostsConfig({ hosts: [record.config] });
      if (!parsed.ok) return err({ ...parsed.error, field: parsed.error.field.replace(/^\/hosts\/0/, "") });
      if (record.config.calendar !== undefined) {
        const section = parseCalendarSection(record.config.calendar, "/calendar");
        if (!section.ok) return err(section.error);
      }
      const next = { ...record, state: "active" as const };
      const put = await store.put(next, ifUpdatedAt);
      if (put !== "ok") return err(fieldError("conflict", "", "changed elsewhere"));
      activated.push(record.id);
      return ok(next);
    },
    async deactivate(id) {
      const r = await store.get(id);
      if (r !== undefined) await store.put({ ...r, state: "disconnected" }, r.updatedAt);
    },
    idAvailable: async (id) => (await store.get(id)) === undefined && !configHostIds.includes(id),
    reconcile: () => Promise.resolve(),
  };
}
