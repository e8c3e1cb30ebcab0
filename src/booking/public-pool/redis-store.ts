/**
 * The public booking pool in Redis, shared by every gateway process. Keys follow the hold
 * store's layout (src/holds/redis/keys.ts): every key of a host starts with
 * `<prefix>{<hostId>}:`, so on a Redis Cluster they share one slot and one script may touch
 * them all; the script builds an origin's key from that base, as the hold store's scripts do.
 *
 *   <p>{h}:pub:places        ZSET   place id -> until (epoch ms)
 *   <p>{h}:pub:o:<origin>    ZSET   the origin's places, same scores
 *   <p>{h}:pub:meta          HASH   place id -> "<origin> <takenAt>"
 *
 * Each key expires with the last place it holds, so an idle pool costs nothing.
 */
import type { RedisClient } from "../../redis/client.js";
import { redisKeys, type RedisKeyspace } from "../../redis/keys.js";
import { evalScript, redisScript } from "../../redis/script.js";
import { HoldStoreUnavailableError } from "../../holds/port.js";
import type { HeldPlace, PoolCaps, PoolPlace, PublicPoolStore, TakeOutcome } from "./port.js";

/**
 * `forget(id)` drops one place (its origin entry and meta too); then lapsed places are
 * forgotten, at most 64 a call.
 */
const PRUNE = `
local base = ARGV[1]
local now = tonumber(ARGV[2])
local function forget(id)
  local meta = redis.call('HGET', KEYS[2], id)
  if meta then
    redis.call('ZREM', base .. 'pub:o:' .. string.match(meta, '^(%S+)'), id)
    redis.call('HDEL', KEYS[2], id)
  end
  redis.call('ZREM', KEYS[1], id)
end
for _, id in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, 64)) do forget(id) end
`;

const EXTEND = `
local function expireWith(key)
  local last = redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')
  if last[2] then redis.call('PEXPIREAT', key, math.ceil(tonumber(last[2])) + 1000) end
end
`;

// KEYS[1] places, KEYS[2] meta, KEYS[3] the origin's places.
// ARGV: base, now, id, until, origin, perHost, perOrigin.
// Returns {1} or {0, scope, limit, earliestUntil, id1, takenAt1, id2, takenAt2, ...}.
const TAKE = redisScript(
  "public-pool-take",
  `${PRUNE}${EXTEND}
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now)
local id = ARGV[3]
if redis.call('ZSCORE', KEYS[1], id) then return {1} end
local function refuse(scope, limit, key)
  local held = redis.call('ZRANGE', key, 0, -1, 'WITHSCORES')
  local out = {0, scope, limit, held[2] or tostring(now)}
  for i = 1, #held, 2 do
    local meta = redis.call('HGET', KEYS[2], held[i]) or ''
    out[#out + 1] = held[i]
    out[#out + 1] = string.match(meta, '%S+ (%S+)') or '0'
  end
  return out
end
local perHost = tonumber(ARGV[6])
local perOrigin = tonumber(ARGV[7])
if redis.call('ZCARD', KEYS[3]) >= perOrigin then return refuse('origin', perOrigin, KEYS[3]) end
if redis.call('ZCARD', KEYS[1]) >= perHost then return refuse('host', perHost, KEYS[1]) end
local untilMs = tonumber(ARGV[4])
redis.call('ZADD', KEYS[1], untilMs, id)
redis.call('ZADD', KEYS[3], untilMs, id)
redis.call('HSET', KEYS[2], id, ARGV[5] .. ' ' .. ARGV[2])
expireWith(KEYS[1])
expireWith(KEYS[3])
redis.call('PEXPIREAT', KEYS[2], math.ceil(tonumber(redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')[2])) + 1000)
return {1}
`,
);

// KEYS[1] places, KEYS[2] meta. ARGV: base, now, id...
const RELEASE = redisScript(
  "public-pool-release",
  `${PRUNE}
for i = 3, #ARGV do forget(ARGV[i]) end
return redis.call('ZCARD', KEYS[1])
`,
);

/** Origin tags are base64url hashes (take-place.ts): no space, no brace, bounded. */
const ORIGIN_TAG = /^[A-Za-z0-9_-]{1,64}$/;

export class RedisPublicPool implements PublicPoolStore {
  readonly #keys: RedisKeyspace;

  constructor(
    private readonly redis: RedisClient,
    /** Prefix of every key (default "schcp:"), as the hold store's. */
    prefix?: string,
  ) {
    this.#keys = redisKeys(prefix);
  }

  /** The host's base (the scripts build an origin's key from it) and the pool's two keys. */
  #pool(hostId: string): { readonly base: string; readonly places: string; readonly meta: string } {
    const base = this.#keys.hostBase(hostId);
    return {
      base,
      places: this.#keys.hostKey(hostId, "pub", "places"),
      meta: this.#keys.hostKey(hostId, "pub", "meta"),
    };
  }

  async #run(what: string, call: () => Promise<unknown>): Promise<unknown> {
    try {
      return await call();
    } catch (error) {
      // The edge answers the store's infrastructure error with 503 and Retry-After.
      throw new HoldStoreUnavailableError(`public booking pool: ${what}: Redis did not answer`, {
        cause: error,
      });
    }
  }

  async take(hostId: string, place: PoolPlace, caps: PoolCaps, now: number): Promise<TakeOutcome> {
    if (!ORIGIN_TAG.test(place.origin)) throw new RangeError(`public pool: bad origin tag ${place.origin}`);
    const pool = this.#pool(hostId);
    const reply = (await this.#run("take", () =>
      evalScript(
        this.redis,
        TAKE,
        [pool.places, pool.meta, this.#keys.hostKey(hostId, "pub", "o", place.origin)],
        [pool.base, now, place.id, place.until, place.origin, caps.perHost, caps.perOrigin],
      ),
    )) as Array<string | number>;
    if (Number(reply[0]) === 1) return { ok: true, value: undefined };
    const places: HeldPlace[] = [];
    for (let i = 4; i + 1 < reply.length; i += 2)
      places.push({ id: String(reply[i]), takenAt: Number(reply[i + 1]) });
    return {
      ok: false,
      error: {
        scope: reply[1] === "origin" ? "origin" : "host",
        limit: Number(reply[2]),
        places,
        earliestUntil: Number(reply[3]),
      },
    };
  }

  async release(hostId: string, ids: readonly string[], now: number): Promise<void> {
    if (ids.length === 0) return;
    const { base, places, meta } = this.#pool(hostId);
    await this.#run("release", () => evalScript(this.redis, RELEASE, [places, meta], [base, now, ...ids]));
  }

  async count(hostId: string, now: number): Promise<number> {
    const { base, places, meta } = this.#pool(hostId);
    return Number(
      await this.#run("count", () => evalScript(this.redis, RELEASE, [places, meta], [base, now])),
    );
  }
}
