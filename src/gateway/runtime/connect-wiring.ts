/**
 * Connect for one gateway process: the providers the environment turned on
 * (cli/serve-env.ts readConnectEnv), resolved against the public origin, with pending states in
 * memory or — when the gateway has Redis — on its own connection under the gateway's key
 * prefix, so a callback may land on any replica. Grants go into the runtime's token vault, so
 * there is no Connect without TOKEN_KEYS. The routes are the console edge's
 * (src/edges/console/connect); connecting a CalDAV account discovers its calendars with the
 * CalDAV connector, handed to the edge as its CaldavDiscovery.
 */
import { createCaldavConnector, validateCaldavSettings } from "../../connectors/caldav/index.js";
import type { Clock } from "../../protocol/clock.js";
import type { Logger } from "../../protocol/logger.js";
import { connectClient, createClient } from "../../redis/connection.js";
import { vaultClientOf } from "../credentials/host-tokens.js";
import type { TokenVault } from "../credentials/vault.js";
import type { BasicCredentialVault } from "../../edges/console/connect/basic-vault.js";
import type { CaldavDiscovery } from "../../edges/console/connect/caldav.js";
import { createDisconnect } from "../../edges/console/connect/disconnect.js";
import { createConnect, type Connect } from "../../edges/console/connect/flow.js";
import { resolveProviders } from "../../edges/console/connect/providers.js";
import { MemoryConnectStateStore, RedisConnectStateStore } from "../../edges/console/connect/state-store.js";
import type { ConnectAppDeps, ConnectProviders } from "../../edges/console/connect/wiring.js";

/** The CalDAV connector's settings check and calendar discovery, as the console edge's port. */
export const caldavDiscovery: CaldavDiscovery = {
  async discover(account, transport) {
    const valid = validateCaldavSettings(account);
    if (!valid.ok) return { ok: false, error: { kind: "invalid", message: valid.error.message } };
    const found = await createCaldavConnector(valid.value, transport).discoverCalendars();
    if (found.ok) return found;
    return {
      ok: false,
      error: {
        kind: "upstream",
        code: found.error.code,
        ...(found.error.reason !== undefined && { reason: found.error.reason }),
        status: found.upstream?.status ?? 0,
      },
    };
  },
};

export interface ConnectWiringOptions {
  readonly providers: ConnectProviders;
  readonly publicOrigin: string;
  readonly vault: TokenVault;
  /** CalDAV hosts' passwords, deleted on disconnect (absent: CalDAV hosts have none here). */
  readonly basicVault?: BasicCredentialVault;
  /** Where the client ids and secrets are read from (the names are fixed by readConnectEnv). */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly redisUrl?: string;
  readonly redisKeyPrefix: string;
}

/** Throws ConnectConfigError (a public origin that is neither https nor loopback http). */
export async function connectWiring(
  opts: ConnectWiringOptions,
): Promise<{ readonly deps: ConnectAppDeps; close(): Promise<void> }> {
  const providers = resolveProviders({ ...opts.providers, publicBaseUrl: opts.publicOrigin }, opts.env);
  const base = { providers, vault: opts.vault, clock: opts.clock, logger: opts.logger };
  const deps = (connect: Connect | undefined): ConnectAppDeps => ({
    ...(connect !== undefined && { connect }),
    providers: [...providers.keys()],
    vault: opts.vault,
    disconnect: (hosts, managedHosts) =>
      createDisconnect({
        hosts,
        vault: opts.vault,
        ...(opts.basicVault !== undefined && { basicVault: opts.basicVault }),
        ...(managedHosts !== undefined && { managedHosts }),
        // The client the host's settings name (what its refresher uses), else Connect's own.
        clientOf: (hostId, provider) => {
          const settings = hosts.get(hostId)?.config.connector.settings;
          const p = providers.get(provider);
          return (
            (settings !== undefined ? vaultClientOf(settings, opts.env) : undefined) ??
            (p !== undefined ? { clientId: p.clientId, clientSecret: p.clientSecret } : undefined)
          );
        },
        logger: opts.logger,
      }),
  });
  // No OAuth client: nothing to start, no pending states to keep; disconnect still works.
  if (providers.size === 0) return { deps: deps(undefined), close: () => Promise.resolve() };
  if (opts.redisUrl === undefined) {
    return {
      deps: deps(createConnect({ ...base, states: new MemoryConnectStateStore(opts.clock) })),
      close: () => Promise.resolve(),
    };
  }
  const client = createClient({ url: opts.redisUrl });
  await connectClient(client, opts.redisUrl);
  return {
    deps: deps(createConnect({ ...base, states: new RedisConnectStateStore(client, opts.redisKeyPrefix) })),
    close: () =>
      client.quit().then(
        () => undefined,
        () => client.disconnect(),
      ),
  };
}
