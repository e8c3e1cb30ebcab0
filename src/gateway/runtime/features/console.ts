/**
 * The operator console's stores (src/edges/console/wiring.ts) and, with a token vault, the
 * setup page's calendars and locations, read with the connectors' own client and origins
 * (the same fetch, so whatever reaches the connectors reaches these).
 */
import { consoleWiring } from "../console-wiring.js";
import type { ConsoleDeps } from "../../../edges/console/kit.js";
import { createSetupChoices } from "../../../edges/console/setup/choices.js";
import { keyPrefix, type GatewayRuntimeOptions, type RuntimeBasics } from "../options.js";
import { setupConnectors } from "../setup-choices-wiring.js";
import type { Closable } from "../started.js";

export type ConsoleFeatureOptions = Pick<
  GatewayRuntimeOptions,
  "dataDir" | "redisUrl" | "redisKeyPrefix" | "consoleSessions" | "ownerCaps" | "credentials"
>;

export interface ConsoleFeature extends Closable {
  readonly deps: ConsoleDeps;
}

export async function mountConsole(
  opts: ConsoleFeatureOptions,
  { clock, connectorFetch }: Pick<RuntimeBasics, "clock" | "connectorFetch">,
): Promise<ConsoleFeature> {
  const wiring = await consoleWiring({
    clock,
    redisKeyPrefix: keyPrefix(opts),
    dataDir: opts.dataDir,
    ...(opts.redisUrl !== undefined && { redisUrl: opts.redisUrl }),
    ...(opts.consoleSessions !== undefined && { sessionPolicy: opts.consoleSessions }),
    ...(opts.ownerCaps !== undefined && { ownerCaps: opts.ownerCaps }),
  });
  const credentials = opts.credentials;
  return {
    deps:
      credentials === undefined
        ? wiring.deps
        : {
            ...wiring.deps,
            setupChoices: createSetupChoices({
              connectors: setupConnectors,
              credentials,
              ...(credentials.basic !== undefined && { basicVault: credentials.basic }),
              fetch: connectorFetch,
              clock,
            }),
          },
    close: () => wiring.close(),
  };
}
