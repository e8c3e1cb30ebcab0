/**
 * Console-created hosts (src/gateway/managed-hosts): built like the config file's and served
 * in the same directory. Their calendar push channels (push_url) are wired at the next start
 * only: until then a managed calendar host is synced on its schedule and on request.
 */
import type { MutableHostDirectory } from "../../../booking/hosts/directory.js";
import { createManagedHosts, type ManagedHostsRuntime } from "../../managed-hosts/managed-hosts.js";
import { openManagedHostStore } from "../../managed-hosts/open-store.js";
import type { ManagedHostStore } from "../../../edges/console/managed-hosts.js";
import { buildHost, type BuildHostsDeps, type BuiltHost } from "../hosts.js";
import { keyPrefix, type GatewayRuntimeOptions, type RuntimeBasics } from "../options.js";
import type { Closable } from "../started.js";
import type { CalendarHosts } from "./calendar.js";

export type ManagedHostsFeatureOptions = Pick<
  GatewayRuntimeOptions,
  "hosts" | "dataDir" | "redisUrl" | "redisKeyPrefix" | "managedHostsReconcileMs"
>;

export interface ManagedHostsFeature extends Closable {
  readonly managed: ManagedHostsRuntime;
}

/**
 * Opens the store; the caller adds the result to its started list, then calls
 * `managed.load()` (serves every active record). close() closes the store.
 */
export async function mountManagedHosts(
  opts: ManagedHostsFeatureOptions,
  { clock, logger }: Pick<RuntimeBasics, "clock" | "logger">,
  d: {
    readonly directory: MutableHostDirectory;
    readonly calendar: CalendarHosts;
    readonly buildDeps: BuildHostsDeps;
  },
): Promise<ManagedHostsFeature> {
  const store: ManagedHostStore = await openManagedHostStore({
    dataDir: opts.dataDir,
    redisKeyPrefix: keyPrefix(opts),
    ...(opts.redisUrl !== undefined && { redisUrl: opts.redisUrl }),
  });
  return {
    managed: createManagedHosts<BuiltHost>({
      store,
      configIds: new Set(opts.hosts.map((h) => h.id)),
      logger,
      clock,
      live: {
        build: (config) => buildHost(config, "", opts.dataDir, d.buildDeps),
        serve: ({ runtime: host, calendarHost }) => {
          d.directory.put(host);
          d.calendar.serve(host.config.id, calendarHost);
        },
        stop: (hostId) => {
          d.directory.remove(hostId);
          d.calendar.stop(hostId);
        },
      },
    }),
    close: () => store.close(),
  };
}

/**
 * Another replica's console changes reach this one here (a missed tick is caught by the
 * next); undefined with managedHostsReconcileMs: false. close() stops the timer.
 */
export function reconcileManagedHosts(
  opts: Pick<GatewayRuntimeOptions, "managedHostsReconcileMs">,
  { logger }: Pick<RuntimeBasics, "logger">,
  managed: ManagedHostsRuntime,
): Closable | undefined {
  const reconcileMs = opts.managedHostsReconcileMs ?? 2_000;
  if (reconcileMs === false) return undefined;
  const timer = setInterval(() => {
    managed.reconcile().catch((e: unknown) => {
      logger.error("managed hosts not reconciled", { error: String(e) });
    });
  }, reconcileMs);
  timer.unref();
  return {
    close: () => {
      clearInterval(timer);
      return Promise.resolve();
    },
  };
}
