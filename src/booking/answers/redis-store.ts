/**
 * The rule store in Redis, shared by every gateway process. Keys follow the hold store's layout
 * (src/redis/keys.ts): both carry the host's tag, so on a Redis Cluster they share one slot and
 * one script touches both.
 *
 *   <p>{h}:rules       HASH   jti -> the stored rule (JSON: jws and claims)
 *   <p>{h}:rules:exp   ZSET   jti -> exp (epoch ms)
 *
 * Adding is one script: expired rules are forgotten, the cap is checked and the rule written
 * in one step, so concurrent adds never keep more than MAX_RULES_PER_HOST.
 */
import type { RedisClient } from "../../redis/client.js";
import { redisKeys, type RedisKeyspace } from "../../redis/keys.js";
import { evalScript, redisScript } from "../../redis/script.js";
import { HoldStoreUnavailableError } from "../../holds/port.js";
import { byIat, MAX_RULES_PER_HOST } from "./port.js";
import type { AddRuleOutcome, RuleStore, RuleTerms, StoredRule } from "./port.js";

const PRUNE = `
local now = tonumber(ARGV[1])
for _, jti in ipairs(redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now, 'LIMIT', 0, 256)) do
  redis.call('HDEL', KEYS[1], jti)
  redis.call('ZREM', KEYS[2], jti)
end
`;

// KEYS[1] rules, KEYS[2] rules:exp. ARGV: now, jti, exp (ms), json, cap.
// Returns "added", "replaced" or "full".
const ADD = redisScript(
  "rules-add",
  `${PRUNE}
local jti = ARGV[2]
local outcome = 'added'
if redis.call('HEXISTS', KEYS[1], jti) == 1 then
  outcome = 'replaced'
elseif redis.call('HLEN', KEYS[1]) >= tonumber(ARGV[5]) then
  return 'full'
end
redis.call('HSET', KEYS[1], jti, ARGV[4])
redis.call('ZADD', KEYS[2], tonumber(ARGV[3]), jti)
local last = redis.call('ZRANGE', KEYS[2], -1, -1, 'WITHSCORES')
if last[2] then
  redis.call('PEXPIREAT', KEYS[1], math.ceil(tonumber(last[2])) + 1000)
  redis.call('PEXPIREAT', KEYS[2], math.ceil(tonumber(last[2])) + 1000)
end
return outcome
`,
);

// KEYS[1] rules, KEYS[2] rules:exp. ARGV: now. Returns the live rules' JSON.
const LIST = redisScript(
  "rules-list",
  `${PRUNE}
return redis.call('HVALS', KEYS[1])
`,
);

// KEYS[1] rules, KEYS[2] rules:exp. ARGV: jti. Returns 1 when a rule was forgotten.
const REMOVE = redisScript(
  "rules-remove",
  `
redis.call('ZREM', KEYS[2], ARGV[1])
return redis.call('HDEL', KEYS[1], ARGV[1])
`,
);

export class RedisRuleStore implements RuleStore {
  readonly #keys: RedisKeyspace;

  constructor(
    private readonly redis: RedisClient,
    /** Prefix of every key (default "schcp:"), as the hold store's. */
    prefix?: string,
  ) {
    this.#keys = redisKeys(prefix);
  }

  #rules(hostId: string): [string, string] {
    return [this.#keys.hostKey(hostId, "rules"), this.#keys.hostKey(hostId, "rules", "exp")];
  }

  async #run(what: string, call: () => Promise<unknown>): Promise<unknown> {
    try {
      return await call();
    } catch (error) {
      // The edge answers the store's infrastructure error with 503 and Retry-After.
      throw new HoldStoreUnavailableError(`rule store: ${what}: Redis did not answer`, { cause: error });
    }
  }

  async add(hostId: string, rule: StoredRule, now: number): Promise<AddRuleOutcome> {
    const json = JSON.stringify({ jws: rule.jws, claims: rule.claims });
    const reply = await this.#run("add", () =>
      evalScript(this.redis, ADD, this.#rules(hostId), [
        now,
        rule.claims.jti,
        rule.claims.exp * 1000,
        json,
        MAX_RULES_PER_HOST,
      ]),
    );
    return reply === "replaced" ? "replaced" : reply === "full" ? "full" : "added";
  }

  async list(hostId: string, now: number): Promise<readonly StoredRule[]> {
    const reply = (await this.#run("list", () =>
      evalScript(this.redis, LIST, this.#rules(hostId), [now]),
    )) as unknown[];
    const out: StoredRule[] = [];
    for (const raw of reply) {
      if (typeof raw !== "string") continue;
      const v = JSON.parse(raw) as { jws?: unknown; claims?: unknown };
      if (typeof v.jws === "string" && typeof v.claims === "object" && v.claims !== null)
        out.push({ jws: v.jws, claims: v.claims as RuleTerms });
    }
    return out.sort(byIat);
  }

  async remove(hostId: string, jti: string): Promise<boolean> {
    const reply = await this.#run("remove", () => evalScript(this.redis, REMOVE, this.#rules(hostId), [jti]));
    return Number(reply) === 1;
  }
}
