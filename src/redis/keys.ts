/**
 * Key names, the one way every Redis store here builds them. Every key starts with the
 * deployment's prefix (REDIS_KEY_PREFIX, default `schcp:`), so several gateways can share one
 * Redis; each store names its own keys under it (docs/ARCHITECTURE.md, Redis layout and scale,
 * lists them), and test/redis/key-pins.ts pins every name: stored data lives under them.
 *
 * The Redis Cluster rule: a key is placed in a slot by its hash tag, the text between its first
 * `{` and the first `}` after it when that text is not empty, else by the whole key. A
 * multi-key command, a MULTI or a Lua script must name keys of one slot only (else CROSSSLOT).
 * So:
 *  - keys one script or MULTI touches together share a tag: a host's keys carry `{<hostId>}`
 *    (`hostKey`), which also spreads the hosts over the shards;
 *  - a group of keys that must stay together and is not a host's (a BullMQ queue, the periodic
 *    jobs' locks) is tagged with the whole `<prefix><name>`, after the prefix (`group`:
 *    `<prefix>{<prefix><name>}`): the tag keeps the group in the slot of that name (so
 *    deployments sharing a Cluster under different prefixes do not share one slot), and the
 *    prefix in front keeps the key under `<prefix>*` with every other, for a SCAN or a clean-up;
 *  - a key touched alone needs no tag (`key`).
 * Only the first `{…}` of a key counts: a key has at most one tag, and a part put inside a tag
 * should not hold `{` or `}` itself.
 */

/** REDIS_KEY_PREFIX when it is not set. */
export const DEFAULT_REDIS_KEY_PREFIX = "schcp:";

/** `{<text>}`: a hash tag, so every key holding it (first) lands in one Cluster slot. */
export function hashTag(text: string): string {
  return `{${text}}`;
}

/** The names under one prefix; parts are joined with ":". */
export interface RedisKeyspace {
  readonly prefix: string;
  /** `<prefix><part>:<part>…`: a key of its own slot (no tag). */
  key(...parts: readonly string[]): string;
  /** `<prefix>{<hostId>}:`: the start of every key of the host (passed to scripts as a base). */
  hostBase(hostId: string): string;
  /** `<prefix>{<hostId>}:<part>:<part>…`: one of the host's keys, in the host's slot. */
  hostKey(hostId: string, ...parts: readonly string[]): string;
  /**
   * `<prefix>{<prefix><name>}`: the start of a group of keys kept in one slot (a BullMQ
   * prefix…), under the prefix like every key, tagged with the group's whole name.
   */
  group(name: string): string;
  /** The keyspace under `<prefix><name>:` (a store's own corner: `synthetic:`, `basic:`). */
  under(name: string): RedisKeyspace;
}

export function redisKeys(prefix: string = DEFAULT_REDIS_KEY_PREFIX): RedisKeyspace {
  const hostBase = (hostId: string): string => `${prefix}${hashTag(hostId)}:`;
  return {
    prefix,
    key: (...parts) => `${prefix}${parts.join(":")}`,
    hostBase,
    hostKey: (hostId, ...parts) => `${hostBase(hostId)}${parts.join(":")}`,
    group: (name) => `${prefix}${hashTag(`${prefix}${name}`)}`,
    under: (name) => redisKeys(`${prefix}${name}:`),
  };
}
