/**
 * createManagedHosts: the console's hosts made live in this process. A record's
 * config is checked as a config file's host entry would be (parseHostsConfig, then building
 * the host), served beside the config file's hosts, and kept in the store; every other process
 * sharing the store applies the change on its next reconcile().
 *
 * Building and serving are the runtime's (LiveHosts): this module decides what is live.
 */
import type { HostConfig } from "../../booking/api.js";
import { parseHostsConfig } from "../../booking/hosts/parse-config.js";
import { err, fieldError, ok, type FieldError, type Result } from "../../protocol/result.js";
import type { Logger } from "../../protocol/logger.js";
import type { ManagedHostRecord, ManagedHostStore, ManagedHosts } from "../../edges/console/managed-hosts.js";
import type { Clock } from "../../protocol/clock.js";

/** What the runtime does with a host: build it (checking it in full), serve it, stop it. */
interface LiveHosts<B> {
  /** Field errors relative to the host entry ("" is the entry itself). */
  build(config: HostConfig): Promise<Result<B, FieldError>>;
  /** Serve a built host now, replacing a live one with the same id. */
  serve(built: B): void;
  stop(hostId: string): void;
}

export interface ManagedHostsOptions<B> {
  readonly store: ManagedHostStore;
  /** The config file's host ids: never a managed host's. */
  readonly configIds: ReadonlySet<string>;
  readonly live: LiveHosts<B>;
  readonly logger: Logger;
  readonly clock: Clock;
}

export interface ManagedHostsRuntime extends ManagedHosts {
  /** Serve every active record (at start); one that fails is logged and skipped. */
  load(): Promise<void>;
  /** The managed hosts served here, by id (tests, the CLI banner). */
  liveIds(): readonly string[];
}

const HOST_ENTRY = /^\/hosts\/0(?=\/|$)/;

/** A parse or build error of `{ hosts: [config] }` pointed at the host entry itself. */
function relative(e: FieldError): FieldError {
  const field = e.field.replace(HOST_ENTRY, "");
  const message = e.message.startsWith(`${e.field}: `)
    ? `${field === "" ? "/" : field}: ${e.message.slice(e.field.length + 2)}`
    : e.message.replace(HOST_ENTRY, "");
  return fieldError(e.code, field, message);
}

export function createManagedHosts<B>(opts: ManagedHostsOptions<B>): ManagedHostsRuntime {
  const { store, live, logger } = opts;
  /** Managed hosts applied here: the updatedAt of the record each was built (or refused) from. */
  const applied = new Map<string, number>();
  /** Those of them whose stored config was refused: remembered, not served. */
  const refused = new Set<string>();
  let seenVersion: string | undefined;
  // activate, deactivate and reconcile change the live set one at a time.
  let queue: Promise<unknown> = Promise.resolve();
  const serial = <T>(fn: () => Promise<T>): Promise<T> => {
    const run = queue.then(fn, fn);
    queue = run.catch(() => undefined);
    return run;
  };

  const check = async (record: ManagedHostRecord): Promise<Result<B, FieldError>> => {
    if (opts.configIds.has(record.id)) {
      return err(fieldError("id_taken", "/id", `/id: "${record.id}" is a host of the gateway's config file`));
    }
    if (record.config.id !== record.id) {
      return err(fieldError("id_mismatch", "/id", `/id: must be the record's id "${record.id}"`));
    }
    const parsed = parseHostsConfig({ hosts: [record.config] });
    if (!parsed.ok) return err(relative(parsed.error));
    const config = parsed.value[0];
    if (config === undefined) return err(fieldError("invalid_config", "", "no host entry"));
    const built = await live.build(config);
    return built.ok ? built : err(relative(built.error));
  };

  /** Build and serve a stored active record (start, reconcile): a failure is logged, not thrown. */
  const apply = async (record: ManagedHostRecord): Promise<void> => {
    const built = await check(record);
    if (!built.ok) {
      logger.error(
        `MANAGED HOST NOT SERVED: ${record.id}'s stored config is refused at ${built.error.field || "/"}; the other hosts serve`,
        {
          host_id: record.id,
          field: built.error.field,
          error_code: built.error.code,
          error: built.error.message,
        },
      );
      // Remembered, so the same record is not rebuilt (and logged) on every reconcile. What
      // served under an older record stops: every replica serves the stored config or nothing.
      if (applied.has(record.id) && !refused.has(record.id)) live.stop(record.id);
      applied.set(record.id, record.updatedAt);
      refused.add(record.id);
      return;
    }
    live.serve(built.value);
    applied.set(record.id, record.updatedAt);
    refused.delete(record.id);
  };

  const stop = (id: string): void => {
    if (!applied.has(id)) return;
    if (!refused.has(id)) live.stop(id);
    applied.delete(id);
    refused.delete(id);
  };

  const reconcileNow = async (): Promise<void> => {
    // Read before the records: a write after this read changes it again, so it is not missed.
    const version = await store.version();
    if (version === seenVersion) return;
    const records = await store.list();
    const active = new Map(records.filter((r) => r.state === "active").map((r) => [r.id, r]));
    for (const id of [...applied.keys()]) if (!active.has(id)) stop(id);
    for (const record of active.values()) {
      if (applied.get(record.id) !== record.updatedAt) await apply(record);
    }
    seenVersion = version;
  };

  return {
    store,
    load: () => serial(reconcileNow),
    reconcile: () => serial(reconcileNow),
    liveIds: () => [...applied.keys()].filter((id) => !refused.has(id)),

    activate: (record, ifUpdatedAt) =>
      serial(async (): Promise<Result<ManagedHostRecord, FieldError>> => {
        const built = await check(record);
        if (!built.ok) return built;
        // Strictly later than the record it replaces, so every replica sees a change.
        const updatedAt = Math.max(opts.clock.now(), record.updatedAt, (ifUpdatedAt ?? -1) + 1);
        const stored: ManagedHostRecord = { ...record, state: "active", updatedAt };
        const put = await store.put(stored, ifUpdatedAt);
        if (put === "exists") {
          return err(fieldError("exists", "/id", `/id: a host "${record.id}" exists already`));
        }
        if (put === "conflict") {
          return err(
            fieldError("conflict", "", `host "${record.id}" was changed elsewhere meanwhile: reload it`),
          );
        }
        live.serve(built.value);
        applied.set(record.id, updatedAt);
        refused.delete(record.id);
        logger.info(`managed host ${record.id} is live`, { host_id: record.id, owner: record.owner });
        return ok(stored);
      }),

    deactivate: (id) =>
      serial(async () => {
        stop(id);
        // A concurrent change elsewhere: read again and retry, a few times.
        for (let attempt = 0; attempt < 5; attempt += 1) {
          const record = await store.get(id);
          if (record === undefined || record.state === "disconnected") break;
          const updatedAt = Math.max(opts.clock.now(), record.updatedAt + 1);
          const put = await store.put({ ...record, state: "disconnected", updatedAt }, record.updatedAt);
          if (put === "ok") break;
        }
        logger.info(`managed host ${id} is no longer served`, { host_id: id });
      }),

    idAvailable: async (id) => !opts.configIds.has(id) && (await store.get(id)) === undefined,
  };
}
