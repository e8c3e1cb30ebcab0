/**
 * Connect (src/gateway/runtime/connect-wiring.ts). With a vault there is always something to
 * disconnect (CalDAV passwords too); Connect's start/callback only when an OAuth client is
 * configured (connectWiring decides). Undefined without `credentials`.
 */
import type { ConnectAppDeps } from "../../../edges/console/connect/wiring.js";
import { connectWiring } from "../connect-wiring.js";
import { keyPrefix, type GatewayRuntimeOptions, type RuntimeBasics } from "../options.js";
import type { Closable } from "../started.js";

export type ConnectFeatureOptions = Pick<
  GatewayRuntimeOptions,
  "credentials" | "connect" | "redisUrl" | "redisKeyPrefix"
>;

export interface ConnectFeature extends Closable {
  readonly deps: ConnectAppDeps;
}

export async function mountConnect(
  opts: ConnectFeatureOptions,
  { publicOrigin, clock, logger }: Pick<RuntimeBasics, "publicOrigin" | "clock" | "logger">,
): Promise<ConnectFeature | undefined> {
  if (opts.credentials === undefined) return undefined;
  return connectWiring({
    providers: opts.connect ?? {},
    publicOrigin,
    vault: opts.credentials.vault,
    ...(opts.credentials.basic !== undefined && { basicVault: opts.credentials.basic }),
    env: opts.credentials.env,
    clock,
    logger,
    redisKeyPrefix: keyPrefix(opts),
    ...(opts.redisUrl !== undefined && { redisUrl: opts.redisUrl }),
  });
}
