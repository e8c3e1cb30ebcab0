/**
 * The Redis idempotency store's Lua, embedded as strings rather than .lua files: the three
 * scripts are a few lines each, and `npm run build` copies only src/holds/redis/lua, so
 * separate files here would be missing from dist/. Called by SHA; a server that lost its
 * script cache (restart, SCRIPT FLUSH) answers NOSCRIPT, meaning nothing ran, so the script
 * is loaded and the call made once more (the convention of src/holds/redis/scripts.ts).
 *
 * An entry is a HASH: st ("started" | "settled"), ph (payload hash), un (until, epoch ms,
 * judged against the caller's `now`, as in memory.ts), rc (the receipt JSON, opaque to Lua).
 * The Redis TTL only collects garbage; it is set to the entry's own lifetime (until - now).
 */
import { createHash } from "node:crypto";
import type { Redis } from "ioredis";

/**
 * KEYS[1] entry. ARGV: payloadHash, now, until, ttlMs.
 * The one decision that must be atomic: no live entry (absent, or until <= now) -> take the
 * lease and reply {"started"}. Otherwise reply {"existing", st, ph, un, rc} and let the
 * caller apply decideBegin to it (conflict, replay or in_progress).
 */
const BEGIN = `#!lua
local e = redis.call("HMGET", KEYS[1], "st", "ph", "un", "rc")
if e[1] then
  local un = tonumber(e[3])
  if un == nil or un > tonumber(ARGV[2]) then
    return { "existing", e[1], e[2] or "", e[3] or "", e[4] or "" }
  end
end
redis.call("DEL", KEYS[1])
redis.call("HSET", KEYS[1], "st", "started", "ph", ARGV[1], "un", ARGV[3])
redis.call("PEXPIRE", KEYS[1], ARGV[4])
return { "started" }
`;

/** KEYS[1] entry. ARGV: payloadHash, receiptJson, until, ttlMs. Only the lease holder settles. */
const SETTLE = `#!lua
local e = redis.call("HMGET", KEYS[1], "st", "ph")
if e[1] == "started" and e[2] == ARGV[1] then
  redis.call("HSET", KEYS[1], "st", "settled", "un", ARGV[3], "rc", ARGV[2])
  redis.call("PEXPIRE", KEYS[1], ARGV[4])
  return 1
end
return 0
`;

/** KEYS[1] entry. ARGV: payloadHash. Drops a started lease of that hash; never a settled entry. */
const RELEASE = `#!lua
local e = redis.call("HMGET", KEYS[1], "st", "ph")
if e[1] == "started" and e[2] == ARGV[1] then
  redis.call("DEL", KEYS[1])
  return 1
end
return 0
`;

export interface IdempotencyScript {
  readonly name: string;
  readonly source: string;
  readonly sha: string;
}

const script = (name: string, source: string): IdempotencyScript => ({
  name,
  source,
  sha: createHash("sha1").update(source).digest("hex"),
});

export const IDEMPOTENCY_SCRIPTS = {
  begin: script("idempotency-begin", BEGIN),
  settle: script("idempotency-settle", SETTLE),
  release: script("idempotency-release", RELEASE),
} as const;

/** EVALSHA, loading the script and retrying once on NOSCRIPT. */
export async function runScript(
  redis: Redis,
  { source, sha, name }: IdempotencyScript,
  keys: readonly string[],
  args: readonly string[],
): Promise<unknown> {
  try {
    return await redis.evalsha(sha, keys.length, ...keys, ...args);
  } catch (error) {
    if (!(error instanceof Error && error.message.startsWith("NOSCRIPT"))) throw error;
    const loaded = await redis.script("LOAD", source);
    if (loaded !== sha) throw new Error(`SCRIPT LOAD of ${name} returned ${String(loaded)}, expected ${sha}`);
    return redis.evalsha(sha, keys.length, ...keys, ...args);
  }
}
