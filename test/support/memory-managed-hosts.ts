/**
 * TEST DOUBLE of the ManagedHosts port (src/gateway/managed-hosts/port.ts): records in a Map,
 * activate checks the entry with the booking core's parsers (as the real one does, minus building
 * the connector) and stores it active. The real implementation replaces it at merge.
 */
import { parseCalendarSection } from "../../src/booking/calendar/config.js";
import { parseHostsConfig } from "../../src/booking/hosts/index.js";
import type {
  ManagedHostRecord,
  ManagedHosts,
  ManagedHostStore,
} from "../../src/gateway/managed-hosts/port.js";
import { err, fieldError, ok } from "../../src/protocol/result.js";

export function memoryManagedHosts(configHostIds: readonly string[] = []): ManagedHosts & {
  readonly activated: string[];
} {
  const records = new Map<string, ManagedHostRecord>();
  let version = 0;
  const store: ManagedHostStore = {
    list: () => Promise.resolve([...records.values()]),
    get: (id) => Promise.resolve(records.get(id)),
    put: (record, ifUpdatedAt) => {
      const old = records.get(record.id);
      if (ifUpdatedAt === undefined && old !== undefined) return Promise.resolve("exists");
      if (ifUpdatedAt !== undefined && old?.updatedAt !== ifUpdatedAt) return Promise.resolve("conflict");
      records.set(record.id, record);
      version++;
      return Promise.resolve("ok");
    },
    delete: (id) => {
      records.delete(id);
      version++;
      return Promise.resolve();
    },
    version: () => Promise.resolve(String(version)),
    close: () => Promise.resolve(),
  };
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
    deactivate(id) {
      const r = records.get(id);
      if (r !== undefined) records.set(id, { ...r, state: "disconnected" });
      return Promise.resolve();
    },
    idAvailable: (id) => Promise.resolve(!records.has(id) && !configHostIds.includes(id)),
    reconcile: () => Promise.resolve(),
  };
}
