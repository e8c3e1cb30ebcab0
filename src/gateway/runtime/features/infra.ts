/** The stores, limits and pacing every other feature uses (../infra.ts), memory or Redis. */
import { createInfra, type Infra } from "../infra.js";
import type { GatewayRuntimeOptions, RuntimeBasics } from "../options.js";

export type InfraFeatureOptions = Pick<
  GatewayRuntimeOptions,
  | "redisUrl"
  | "redisKeyPrefix"
  | "redisReplicaWait"
  | "redisSlotMoveWaitMs"
  | "memoryStateDir"
  | "availabilityRate"
  | "originRate"
>;

export function mountInfra(
  opts: InfraFeatureOptions,
  { clock, logger, metrics }: Pick<RuntimeBasics, "clock" | "logger" | "metrics">,
): Promise<Infra> {
  return createInfra({
    clock,
    logger,
    metrics,
    ...(opts.redisReplicaWait !== undefined && { replicaWait: opts.redisReplicaWait }),
    ...(opts.redisSlotMoveWaitMs !== undefined && { slotMoveWaitMs: opts.redisSlotMoveWaitMs }),
    ...(opts.redisUrl !== undefined && { redisUrl: opts.redisUrl }),
    ...(opts.redisKeyPrefix !== undefined && { redisKeyPrefix: opts.redisKeyPrefix }),
    ...(opts.memoryStateDir !== undefined && { memoryStateDir: opts.memoryStateDir }),
    ...(opts.availabilityRate !== undefined && { availabilityRate: opts.availabilityRate }),
    ...(opts.originRate !== undefined && { originRate: opts.originRate }),
  });
}
