/**
 * The Square booking webhook receiver of a running gateway (src/edges/inbound/square-webhooks.ts):
 * for every Square host whose settings carry a `webhookSignatureKey`, notifications are
 * verified with that key, de-duplicated by event_id (Redis SET NX with a TTL under the
 * gateway's key prefix when the gateway has Redis, so every process shares one memory of
 * them; process memory otherwise) and worked in-process after the answer. The signature check
 * and the event's reading are the Square connector's, handed to the edge as its verifier.
 */
import type { Clock } from "../../protocol/clock.js";
import type { HostConfig, HostDirectory, OperatorApi, UpstreamChangeApi } from "../../booking/api.js";
import { bookingForUpstreamId } from "../../booking/approval/lookup.js";
import {
  parseSquareBookingEvent,
  SQUARE_SIGNATURE_HEADER,
  verifySquareSignature,
} from "../../connectors/square/webhooks.js";
import type { HoldStore } from "../../holds/port.js";
import { connectClient, createClient } from "../../redis/connection.js";
import {
  inProcessQueue,
  MemoryEventDeduplicator,
  RedisEventDeduplicator,
  squareChangeWorker,
  type EventDeduplicator,
  type SquareWebhookHost,
  type SquareWebhookReceiver,
  type SquareWebhookVerifier,
} from "../../edges/inbound/square-webhooks.js";
import type { Logger } from "../../protocol/logger.js";

/** The Square connector's signature check and event reader, as the receiver's port. */
const squareWebhookVerifier: SquareWebhookVerifier = {
  signed: ({ headers, ...input }) =>
    verifySquareSignature({ ...input, signatureHeader: headers.get(SQUARE_SIGNATURE_HEADER) ?? undefined }),
  parse: parseSquareBookingEvent,
};

export interface SquareWebhookWiring {
  readonly receiver: SquareWebhookReceiver;
  /** Waits for queued changes, then closes the de-dup's Redis connection. */
  close(): Promise<void>;
}

/** undefined when no Square host has a signature key (no receiver is mounted). */
export async function squareWebhookWiring(opts: {
  readonly hosts: readonly HostConfig[];
  readonly directory: HostDirectory;
  readonly store: HoldStore;
  readonly api: Pick<OperatorApi, "hostCancel"> & UpstreamChangeApi;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly redisUrl?: string;
  readonly redisKeyPrefix: string;
}): Promise<SquareWebhookWiring | undefined> {
  const keyed = new Map<string, SquareWebhookHost>();
  for (const h of opts.hosts) {
    const { webhookSignatureKey: signatureKey, locationId } = h.connector.settings;
    if (h.connector.type === "square" && typeof signatureKey === "string" && typeof locationId === "string")
      keyed.set(h.id, { signatureKey, locationId });
  }
  if (keyed.size === 0) return undefined;

  let dedup: EventDeduplicator = new MemoryEventDeduplicator({ clock: opts.clock });
  let closeRedis = (): Promise<void> => Promise.resolve();
  if (opts.redisUrl !== undefined) {
    const client = createClient({ url: opts.redisUrl });
    await connectClient(client, opts.redisUrl);
    dedup = new RedisEventDeduplicator(client, opts.redisKeyPrefix);
    closeRedis = () =>
      client.quit().then(
        () => undefined,
        () => client.disconnect(),
      );
  }
  const queue = inProcessQueue(
    squareChangeWorker({
      hosts: opts.directory,
      findBooking: async (hostId, upstreamId) =>
        (await bookingForUpstreamId(opts.store, hostId, upstreamId))?.state,
      hostCancel: (hostId, bookingId, input) => opts.api.hostCancel(hostId, bookingId, input),
      applyUpstreamMove: (hostId, bookingId, move) => opts.api.applyUpstreamMove(hostId, bookingId, move),
      logger: opts.logger,
    }),
    opts.logger,
  );
  return {
    receiver: { verifier: squareWebhookVerifier, host: (id) => keyed.get(id), dedup, ...queue },
    close: async () => {
      await queue.idle();
      await closeRedis();
    },
  };
}
