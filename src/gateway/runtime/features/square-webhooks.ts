/** Square booking webhooks (../square-webhook-wiring.ts); undefined when no host has a key. */
import type { HostDirectory } from "../../../booking/api.js";
import type { BookingService } from "../../booking-service.js";
import type { HoldStore } from "../../../holds/port.js";
import { squareWebhookWiring, type SquareWebhookWiring } from "../square-webhook-wiring.js";
import { keyPrefix, type GatewayRuntimeOptions, type RuntimeBasics } from "../options.js";

export type SquareWebhooksFeatureOptions = Pick<GatewayRuntimeOptions, "redisUrl" | "redisKeyPrefix">;

export function mountSquareWebhooks(
  opts: SquareWebhooksFeatureOptions,
  { clock, logger }: Pick<RuntimeBasics, "clock" | "logger">,
  d: { readonly directory: HostDirectory; readonly store: HoldStore; readonly service: BookingService },
): Promise<SquareWebhookWiring | undefined> {
  return squareWebhookWiring({
    // The config file's hosts and the console's active at start (one activated later is
    // keyed at the next start, as its calendar push is).
    hosts: d.directory.list().map((h) => h.config),
    directory: d.directory,
    store: d.store,
    api: d.service,
    clock,
    logger,
    redisKeyPrefix: keyPrefix(opts),
    ...(opts.redisUrl !== undefined && { redisUrl: opts.redisUrl }),
  });
}
