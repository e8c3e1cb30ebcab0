/**
 * TaskLock on Redis for the periodic jobs (Redis mode): the lock of redis/lock.ts (SET NX PX
 * under a random token; renewal is a compare-and-PEXPIRE script, so a process can only extend
 * a lease it still holds). Leases are not released early (see PeriodicTask).
 */
import type { RedisOptions } from "ioredis";
import { openRedis, type RedisClient } from "../../redis/client.js";
import { redisKeys } from "../../redis/keys.js";
import { acquireLock } from "../../redis/lock.js";
import type { TaskLease, TaskLock } from "./periodic.js";

/**
 * Where the gateway keeps its periodic jobs' leases: `<p>{<p>jobs}:lock:<task>` (`<p>` the
 * REDIS_KEY_PREFIX), every task's lease under one hash tag (one Cluster slot), beside nothing of
 * a host, and under the prefix like every key the gateway writes.
 */
export function taskLockPrefix(keyPrefix?: string): string {
  return `${redisKeys(keyPrefix).group("jobs")}:lock:`;
}

export interface RedisTaskLockOptions {
  readonly redisUrl: string;
  readonly redisOptions?: RedisOptions;
  /** Key prefix (default: taskLockPrefix() of the default REDIS_KEY_PREFIX). */
  readonly prefix?: string;
}

export class RedisTaskLock implements TaskLock {
  private readonly redis: RedisClient;
  private readonly prefix: string;

  constructor(options: RedisTaskLockOptions) {
    this.prefix = options.prefix ?? taskLockPrefix();
    // Fail fast: a lock that cannot be taken means "skip this tick", never a hang.
    this.redis = openRedis(options.redisUrl, {
      redisOptions: { maxRetriesPerRequest: 1, commandTimeout: 5_000, ...options.redisOptions },
    });
    this.redis.on("error", () => undefined); // surfaced by the commands that fail
  }

  async acquire(name: string, ttlMs: number): Promise<TaskLease | null> {
    const lease = await acquireLock(this.redis, this.prefix + name, ttlMs);
    if (lease === undefined) return null;
    return { renew: (renewMs) => lease.renew(renewMs) };
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}
