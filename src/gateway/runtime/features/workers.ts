/** The background workers (../workers.ts); undefined with workers: false. */
import type { BookingDeps } from "../../../booking/api.js";
import type { BookingService } from "../../booking-service.js";
import { startWorkers } from "../workers.js";
import type { GatewayRuntimeOptions, RuntimeBasics } from "../options.js";
import type { Closable } from "../started.js";

export type WorkersFeatureOptions = Pick<GatewayRuntimeOptions, "workers" | "redisUrl" | "redisKeyPrefix">;

/** close() stops the workers. */
export function mountWorkers(
  opts: WorkersFeatureOptions,
  { logger }: Pick<RuntimeBasics, "logger">,
  { service, deps }: { readonly service: BookingService; readonly deps: BookingDeps },
): Closable | undefined {
  if (opts.workers === false) return undefined;
  const workers = startWorkers({
    deps,
    maintenance: service,
    logger,
    ...(opts.redisKeyPrefix !== undefined && { redisKeyPrefix: opts.redisKeyPrefix }),
    ...(opts.redisUrl !== undefined && { redisUrl: opts.redisUrl }),
    ...(typeof opts.workers === "object" && { intervals: opts.workers }),
  });
  return { close: () => workers.stop() };
}
