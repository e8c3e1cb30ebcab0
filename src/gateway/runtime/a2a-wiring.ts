/**
 * The A2A intents as the runtime builds them: keys and abuse buckets in Redis when the
 * gateway has it (shared by every process), else in memory and the data dir.
 */
import type { BookingDeps } from "../../booking/api.js";
import { DEFAULT_REDIS_KEY_PREFIX } from "../../redis/keys.js";
import type { BookingService } from "../booking-service.js";
import { MemoryRateLimiter } from "../../edges/http/rate-limit.js";
import type { Logger } from "../../protocol/logger.js";
import type { Metrics } from "../../protocol/metrics.js";
import type { RateLimiter } from "../../edges/http/types.js";
import { countedLimiter } from "../metrics/counted-limiter.js";
import { RedisRateLimiter } from "./redis-rate-limit.js";
import { connectClient, createClient } from "../../redis/connection.js";
import {
  createA2aApiKeys,
  fileKeyHashStore,
  redisKeyHashStore,
  type A2aApiKeys,
} from "../../edges/a2a/api-keys.js";
import type { A2aIntents } from "../../edges/a2a/port.js";
import { A2A_CONTACT_RATE, A2A_ORIGIN_RATE, createA2aIntents } from "../../edges/a2a/intents/index.js";

export interface A2aWiring {
  readonly intents: A2aIntents;
  readonly keys: A2aApiKeys;
  close(): Promise<void>;
}

export async function a2aWiring(opts: {
  readonly core: BookingService;
  readonly booking: BookingDeps;
  readonly logger: Logger;
  /** Counts the abuse limits' refusals ("a2a-origin", "a2a-contact"). */
  readonly metrics?: Metrics;
  readonly dataDir: string;
  readonly redisUrl?: string;
  readonly redisKeyPrefix?: string;
}): Promise<A2aWiring> {
  const counted = (limiter: RateLimiter, limit: string): RateLimiter =>
    opts.metrics === undefined ? limiter : countedLimiter(limiter, limit, opts.metrics);
  if (opts.redisUrl === undefined) {
    const keys = createA2aApiKeys(fileKeyHashStore(opts.dataDir));
    const limits = {
      origin: counted(new MemoryRateLimiter(A2A_ORIGIN_RATE), "a2a-origin"),
      contact: counted(new MemoryRateLimiter(A2A_CONTACT_RATE), "a2a-contact"),
    };
    const intents = createA2aIntents({
      core: opts.core,
      booking: opts.booking,
      keys,
      limits,
      logger: opts.logger,
    });
    return { intents, keys, close: () => Promise.resolve() };
  }
  const prefix = opts.redisKeyPrefix ?? DEFAULT_REDIS_KEY_PREFIX;
  const client = createClient({ url: opts.redisUrl });
  await connectClient(client, opts.redisUrl);
  const keys = createA2aApiKeys(redisKeyHashStore(client, prefix));
  const limits = {
    origin: counted(new RedisRateLimiter(client, A2A_ORIGIN_RATE, prefix, "a2a-origin"), "a2a-origin"),
    contact: counted(new RedisRateLimiter(client, A2A_CONTACT_RATE, prefix, "a2a-contact"), "a2a-contact"),
  };
  const intents = createA2aIntents({
    core: opts.core,
    booking: opts.booking,
    keys,
    limits,
    logger: opts.logger,
  });
  return {
    intents,
    keys,
    close: () =>
      client.quit().then(
        () => undefined,
        () => client.disconnect(),
      ),
  };
}
