/**
 * A Lua script called by SHA, the one way every Redis-backed store here runs its atomic steps
 * (the hold store, the synthetic platform's backend, the OSBP idempotency cache). A server that
 * lost its script cache (a restart, SCRIPT FLUSH) answers NOSCRIPT, meaning nothing ran, so the
 * script is loaded and the call made once more.
 */
import { createHash } from "node:crypto";
import type { Redis } from "ioredis";

export interface RedisScript {
  readonly name: string;
  readonly source: string;
  /** SHA-1 of the source, as Redis names it. */
  readonly sha: string;
}

export function redisScript(name: string, source: string): RedisScript {
  return { name, source, sha: createHash("sha1").update(source).digest("hex") };
}

/** SCRIPT LOAD, checking the server names it as we do. */
export async function loadScript(redis: Redis, script: RedisScript): Promise<void> {
  const sha = await redis.script("LOAD", script.source);
  if (sha !== script.sha) throw new Error(`SCRIPT LOAD of ${script.name} returned ${String(sha)}`);
}

/** EVALSHA; on NOSCRIPT, load and call once more (`onReload` hears of it, for operators). */
export async function evalScript(
  redis: Redis,
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
    await loadScript(redis, script);
    return redis.evalsha(script.sha, keys.length, ...keys, ...args);
  }
}
