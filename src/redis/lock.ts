/**
 * One lock on Redis, the one every lease here is taken with (the periodic jobs' task lock, the
 * calendar push lock per host, the OAuth refresh lock per host): one key, taken with
 * `SET key <random token> PX ttl NX`, renewed and released only by its holder, with a
 * compare-and-PEXPIRE and a compare-and-DEL script on that key. A lease that lapsed and was
 * taken by another process is that process's: the old holder can neither extend nor free it.
 *
 * One key per lock, so a lock works on a Redis Cluster as on one server: the script names
 * only that key, and runs on the node that owns its slot (callers pick the slot with a hash
 * tag, e.g. `{<hostId>}`, to keep a host's lock beside its data).
 *
 * The lock is a lease, not a fence: a holder paused past its TTL may still act while another
 * holds the key. Callers keep their work shorter than the TTL, or renew.
 */
import { randomBytes } from "node:crypto";
import type { RedisClient } from "./client.js";
import { evalScript, redisScript } from "./script.js";

/** PEXPIRE the key only while it still holds the caller's token; 1 when renewed, else 0. */
const RENEW = redisScript(
  "lock-renew",
  `if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("PEXPIRE", KEYS[1], ARGV[2]) else return 0 end`,
);

/** DEL the key only while it still holds the caller's token; 1 when freed, else 0. */
const RELEASE = redisScript(
  "lock-release",
  `if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("DEL", KEYS[1]) else return 0 end`,
);

/** A TTL as Redis takes it: whole milliseconds, at least 1. */
export function lockTtl(ttlMs: number): number {
  return Math.max(1, Math.ceil(ttlMs));
}

export interface RedisLease {
  readonly key: string;
  /** The random token the key holds while this lease is current. */
  readonly token: string;
  /** Extends the lease to `ttlMs` from now; false when it lapsed (and may be another's). */
  renew(ttlMs: number): Promise<boolean>;
  /** Frees the lock; false when it had lapsed already (a new holder's key is left alone). */
  release(): Promise<boolean>;
}

/** The lock at `key` for `ttlMs`, or undefined while another holds it. */
export async function acquireLock(
  redis: RedisClient,
  key: string,
  ttlMs: number,
): Promise<RedisLease | undefined> {
  const token = randomBytes(16).toString("hex");
  const taken = await redis.set(key, token, "PX", lockTtl(ttlMs), "NX");
  if (taken !== "OK") return undefined;
  return {
    key,
    token,
    renew: (renewMs) => renewLock(redis, key, token, renewMs),
    release: () => releaseLock(redis, key, token),
  };
}

export async function renewLock(
  redis: RedisClient,
  key: string,
  token: string,
  ttlMs: number,
): Promise<boolean> {
  return (await evalScript(redis, RENEW, [key], [token, lockTtl(ttlMs)])) === 1;
}

export async function releaseLock(redis: RedisClient, key: string, token: string): Promise<boolean> {
  return (await evalScript(redis, RELEASE, [key], [token])) === 1;
}
