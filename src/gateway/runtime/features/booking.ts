/** The webhook outbox (in-process, or BullMQ with Redis) and the booking service over it. */
import type { BookingDeps } from "../../../booking/api.js";
import type { MutableHostDirectory } from "../../../booking/hosts/directory.js";
import { createBookingService, type BookingService } from "../../booking-service.js";
import { createOutbox, type WebhookOutbox } from "../../../jobs/webhooks/index.js";
import type { Infra } from "../infra.js";
import { bullmqPrefix, type GatewayRuntimeOptions, type RuntimeBasics } from "../options.js";
import type { Closable } from "../started.js";

export type BookingFeatureOptions = Pick<
  GatewayRuntimeOptions,
  "redisUrl" | "redisKeyPrefix" | "webhookFetch"
>;

export interface BookingFeature extends Closable {
  readonly outbox: WebhookOutbox;
  readonly deps: BookingDeps;
  readonly service: BookingService;
}

/** close() drains and closes the outbox. */
export function mountBooking(
  opts: BookingFeatureOptions,
  { clock, logger, ids, metrics }: Pick<RuntimeBasics, "clock" | "logger" | "ids" | "metrics">,
  { directory, infra }: { readonly directory: MutableHostDirectory; readonly infra: Infra },
): BookingFeature {
  const fetch = opts.webhookFetch !== undefined && { fetch: opts.webhookFetch };
  const outbox = createOutbox(
    opts.redisUrl === undefined
      ? { mode: "memory", hosts: directory, clock, logger, ...fetch }
      : {
          mode: "bullmq",
          hosts: directory,
          clock,
          logger,
          redisUrl: opts.redisUrl,
          prefix: bullmqPrefix(opts),
          ...fetch,
        },
  );
  const deps: BookingDeps = {
    hosts: directory,
    store: infra.store,
    clock,
    ids,
    outbox,
    bookingIndex: infra.bookingIndex,
    publicPool: infra.publicPool,
    metrics,
  };
  return { outbox, deps, service: createBookingService(deps), close: () => outbox.close() };
}
