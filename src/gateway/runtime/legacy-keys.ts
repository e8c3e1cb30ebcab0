/**
 * Keys of the earlier Redis layout, left by a gateway that ran before every key started with
 * REDIS_KEY_PREFIX (docs/ARCHITECTURE.md, Redis layout and scale): BullMQ's queues were under
 * `{<p>bullmq}:…` and are now under `<p>{<p>bullmq}:…`. Nothing is moved: a job queued there
 * before the upgrade is not run by this gateway. This only tells the operator, once at start,
 * that such jobs remain, so they are drained or deleted knowingly (docs/production.md, Redis key prefix).
 */
import type { Logger } from "../../protocol/logger.js";
import type { RedisClient } from "../../redis/client.js";
import { hashTag } from "../../redis/keys.js";

/** The queues the gateway runs (src/jobs), and their keys that hold jobs still to do or to read. */
const QUEUES = ["webhooks", "host-messages", "calendar-sync"] as const;
const HOLDING = ["wait", "active", "delayed", "prioritized", "paused", "failed", "repeat"] as const;

/** The earlier layout's BullMQ prefix for a key prefix. */
export const legacyBullmqPrefix = (prefix: string): string => hashTag(`${prefix}bullmq`);

/** The queues that still hold keys under the earlier prefix (reads only; EXISTS per queue). */
export async function legacyQueues(redis: RedisClient, prefix: string): Promise<string[]> {
  const old = legacyBullmqPrefix(prefix);
  const found: string[] = [];
  for (const queue of QUEUES) {
    // One queue's keys share one hash tag, so one EXISTS may name them all on a Cluster too.
    const present = await redis.exists(...HOLDING.map((part) => `${old}:${queue}:${part}`));
    if (present > 0) found.push(queue);
  }
  return found;
}

/** Logs a warning when the earlier layout's queues remain; a failed check is only logged. */
export async function warnOfLegacyQueues(
  redis: RedisClient,
  prefix: string,
  logger: Pick<Logger, "warn">,
): Promise<void> {
  try {
    const queues = await legacyQueues(redis, prefix);
    if (queues.length === 0) return;
    logger.warn(
      "BullMQ keys of the earlier Redis layout remain: jobs queued there before the upgrade are not run " +
        "(docs/production.md, Redis key prefix: drain them with the earlier version, or delete them)",
      { legacy_prefix: legacyBullmqPrefix(prefix), queues },
    );
  } catch (e) {
    logger.warn("the check for keys of the earlier Redis layout failed", {
      error: e instanceof Error ? e.message : String(e),
    });
  }
}
