/** The A2A intents and their API keys (src/edges/a2a/intents/wiring.ts). */
import type { BookingDeps } from "../../../booking/api.js";
import type { BookingService } from "../../booking-service.js";
import { a2aWiring, type A2aWiring } from "../a2a-wiring.js";
import type { GatewayRuntimeOptions, RuntimeBasics } from "../options.js";

export type A2aFeatureOptions = Pick<GatewayRuntimeOptions, "dataDir" | "redisUrl" | "redisKeyPrefix">;

export function mountA2a(
  opts: A2aFeatureOptions,
  { logger, metrics }: Pick<RuntimeBasics, "logger" | "metrics">,
  { service, deps }: { readonly service: BookingService; readonly deps: BookingDeps },
): Promise<A2aWiring> {
  return a2aWiring({
    core: service,
    booking: deps,
    logger,
    metrics,
    dataDir: opts.dataDir,
    ...(opts.redisUrl !== undefined && { redisUrl: opts.redisUrl }),
    ...(opts.redisKeyPrefix !== undefined && { redisKeyPrefix: opts.redisKeyPrefix }),
  });
}
