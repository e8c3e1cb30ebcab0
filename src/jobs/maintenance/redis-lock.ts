/**
 * TaskLock on Redis for the periodic jobs (Redis mode): SET NX PX takes a lease under a
 * random token, and renewal is a compare-and-PEXPIRE script, so a process can only extend
 * a lease it still holds. Leases are not released early (see PeriodicTask).
 */
import { randomBytes } from "node:crypto";
import type { RedisOptions } from "ioredis";
import { openRedis, type RedisClient } from "../../redis/client.js";
import type { TaskLease, TaskLock } from "./periodic.js";

const RENEW = `if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("PEXPIRE", KEYS[1], ARGV[2]) else return 0 end`;

export interface RedisTaskLockOptions {
  readonly redisUrl: string;
  readonly redisOptions?: RedisOptions;
  /** Key prefix (default "{booking-gateway}:lock:"). */
  readonly prefix?: string;
}

export class RedisTaskLock implements TaskLock {
  private readonly redis: RedisClient;
  private readonly prefix: string;

  constructor(options: RedisTaskLockOptions) {
    this.prefix = options.prefix ?? "{booking-gateway}:lock:";
    // Fail fast: a lock that cannot be taken means "skip this tick", never a hang.
    this.redis = openRedis(options.redisUrl, {
      redisOptions: { maxRetriesPerRequest: 1, commandTimeout: 5_000, ...options.redisOptions },
    });
    this.redis.on("error", () => undefined); // surfaced by the commands that fail
  }

  async acquire(name: string, ttlMs: number): Promise<TaskLease | null> {
    const key = this.prefix + name;
    const token = randomBytes(16).toString("hex");
    const taken = await this.redis.set(key, token, "PX", Math.max(1, Math.ceil(ttlMs)), "NX");
    if (taken !== "OK") return null;
    return {
      renew: async (renewMs) =>
        (await this.redis.eval(RENEW, 1, key, token, Math.max(1, Math.ceil(renewMs)))) === 1,
    };
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}
