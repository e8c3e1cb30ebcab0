/**
 * A Lua script called by SHA, the one way every Redis-backed store here runs its atomic steps:
 * the hold store's scripts (src/holds/redis/lua/), and the short ones kept inline beside their
 * store (the lock of lock.ts, the public pool, approval notices, console sign-ins, managed hosts,
 * rate limits, pacing, the OSBP idempotency cache, the synthetic platform's backend). A server
 * that lost its script cache (a restart, SCRIPT FLUSH, a replica just promoted on a cluster)
 * answers NOSCRIPT, meaning nothing ran, so the call is made once more with EVAL, which runs
 * the source and caches it on the node that owns the keys. (A SCRIPT LOAD through a Cluster
 * client reaches one node only, so "load, then EVALSHA" could fail again on another.)
 */
import { createHash } from "node:crypto";
import { eachMaster, type RedisClient } from "./client.js";

export interface RedisScript {
  readonly name: string;
  readonly source: string;
  /** SHA-1 of the source, as Redis names it. */
  readonly sha: string;
}

export function redisScript(name: string, source: string): RedisScript {
  return { name, source, sha: createHash("sha1").update(source).digest("hex") };
}

/** SCRIPT LOAD on every master (a cluster's each), checking the server names it as we do. */
export async function loadScript(redis: RedisClient, script: RedisScript): Promise<void> {
  await eachMaster(redis, async (node: RedisClient) => {
    const sha = await node.script("LOAD", script.source);
    if (sha !== script.sha) throw new Error(`SCRIPT LOAD of ${script.name} returned ${String(sha)}`);
  });
}

/** EVALSHA; on NOSCRIPT, EVAL the source once (`onReload` hears of it, for operators). */
export async function evalScript(
  redis: RedisClient,
  script: RedisScript,
  keys: readonly string[],
  args: readonly (string | number)[],
  onReload?: () => void,
): Promise<unknown> {
  try {
    return await redis.evalsha(script.sha, keys.length, ...keys, ...args);
  } catch (error) {
    if (!(error instanceof Error && error.message.startsWith("NOSCRIPT"))) throw error;
    onReload?.();
    return redis.eval(script.source, keys.length, ...keys, ...args);
  }
}
