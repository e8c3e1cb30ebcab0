/**
 * The Redis idempotency store's Lua, embedded as strings rather than .lua files: the three
 * scripts are a few lines each, and `npm run build` copies only src/holds/redis/lua, so
 * separate files here would be missing from dist/. Run with evalScript (src/redis/script.ts).
 *
 * An entry is a HASH: st ("started" | "settled"), ph (payload hash), un (until, epoch ms,
 * judged against the caller's `now`, as in src/booking/idempotency/entry.ts), rc (the receipt
 * JSON, opaque to Lua; entry-codec.ts reads the entry back).
 * The Redis TTL only collects garbage; it is set to the entry's own lifetime (until - now).
 */
import { redisScript } from "../../../redis/script.js";

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

export const IDEMPOTENCY_SCRIPTS = {
  begin: redisScript("idempotency-begin", BEGIN),
  settle: redisScript("idempotency-settle", SETTLE),
  release: redisScript("idempotency-release", RELEASE),
} as const;
