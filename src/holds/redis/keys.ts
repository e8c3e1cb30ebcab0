/**
 * Redis key layout. Every key of a host starts with `<prefix>{<hostId>}:` so all of them
 * hash to one Redis Cluster slot and a Lua script may touch any of them atomically. The
 * Lua scripts build the same names from the base (lib.lua, place-hold.lua), so the two
 * must change together.
 *
 *   <p>{h}:hold:<holdId>      HASH   the hold (lua/lib.lua lists its fields)
 *   <p>{h}:occ:<resourceId>   ZSET   allocations and busy blocks, score = end (overlap
 *                                    query: score > start, then member start < end)
 *   <p>{h}:busy:<resourceId>  HASH   source -> JSON list of that source's busy members
 *   <p>{h}:agt:<type>         ZSET   agent allocations of a resource type (walk-in reserve)
 *   <p>{h}:occlen             HASH   longest entry per occ/agt set (bounds overlap queries)
 *   <p>{h}:hexp               ZSET   held holds by expiresAt (lazy expiry, sweeper); not a
 *                                    §5.9 waitlist offer whose lapse waits for the line
 *                                    step (its hold has ln = 1; lua/offer-freed.lua)
 *   <p>{h}:lease              ZSET   confirming holds by leaseUntil (reconciler)
 *   <p>{h}:agent:<agentKey>   ZSET   active holds per agent, score expiresAt (+inf confirming),
 *                                    and "t:<bookingId>" (+inf) per tentative booking
 *                                    (§5.10 Locks; lua/booking-index.lua bx_locks)
 *   <p>{h}:pool:unproven      ZSET   active holds of unproven principals (same scores and
 *                                    tentative bookings)
 *   <p>{h}:pool:att:<id>      ZSET   active holds (and tentative bookings) drawing on an
 *                                    attester's pool
 *   <p>{h}:mand:<n>:<iss><jti> ZSET  "h:<holdId>" / "k:<bookingId>" counted against a mandate
 *   <p>{h}:bk:<bookingId>     HASH   the booking
 *   <p>{h}:pbk:<principal>    ZSET   a principal's bookings by end (isPrincipalProven)
 *   <p>{h}:booking-index      ZSET   every booking of the host by creation time (operator list,
 *                                    approval deadlines); written by complete-confirm.lua
 *                                    with the booking itself, so neither exists without the other
 *   <p>{h}:bx:…               the booking indexes (lua/booking-index.lua lists them): order,
 *                                    status, due deadlines, lookup keys, time per resource
 *   <p>{h}:events             LIST   expiry events, JSON, taken with LPOP
 *   <p>{h}:wl:<entryId>       HASH   a waitlist entry (§5.9; lua/waitlist.lua lists its fields)
 *   <p>{h}:wlq, wlo           ZSET   waiting / offered entries by line order
 *   <p>{h}:wla:<agentKey>     ZSET   an agent's waiting or offered entries (max_entries_per_agent)
 *   <p>{h}:wlseq              STRING the line's counter
 *   <p>hosts                  SET    hosts that have had holds (not host-tagged: global)
 *   <p>nonce:<n>:<keyid><nonce>  STRING  RFC 9421 replay memory (SET NX EXAT)
 *   <p>idem:<n>:<agent><key>  HASH   idempotency record or lock
 *   <p>rep:<kind>:<id>        HASH   decayed reputation counts (shared across hosts, §7.3)
 *
 * `<n>:` is the length of the first of two joined parts, so ("a:b", "c") and ("a", "b:c")
 * never share a key. Names are built by src/redis/keys.ts (the Cluster rule is there).
 */
import { redisKeys, type RedisKeyspace } from "../../redis/keys.js";

export class RedisKeys {
  readonly #keys: RedisKeyspace;

  constructor(readonly prefix: string) {
    this.#keys = redisKeys(prefix);
  }

  /** The host's tagged base; every per-host key starts with it. */
  host(hostId: string): string {
    return this.#keys.hostBase(hostId);
  }
  hold(hostId: string, holdId: string): string {
    return this.#keys.hostKey(hostId, "hold", holdId);
  }
  occupancy(hostId: string, resourceId: string): string {
    return this.#keys.hostKey(hostId, "occ", resourceId);
  }
  busy(hostId: string, resourceId: string): string {
    return this.#keys.hostKey(hostId, "busy", resourceId);
  }
  agentType(hostId: string, type: string): string {
    return this.#keys.hostKey(hostId, "agt", type);
  }
  holdExpiry(hostId: string): string {
    return this.#keys.hostKey(hostId, "hexp");
  }
  lease(hostId: string): string {
    return this.#keys.hostKey(hostId, "lease");
  }
  agent(hostId: string, agentKey: string): string {
    return this.#keys.hostKey(hostId, "agent", agentKey);
  }
  unproven(hostId: string): string {
    return this.#keys.hostKey(hostId, "pool", "unproven");
  }
  attester(hostId: string, attester: string): string {
    return this.#keys.hostKey(hostId, "pool", "att", attester);
  }
  mandate(hostId: string, rootIss: string, jti: string): string {
    return this.#keys.hostKey(hostId, "mand", joined(rootIss, jti));
  }
  booking(hostId: string, bookingId: string): string {
    return this.#keys.hostKey(hostId, "bk", bookingId);
  }
  bookingIndex(hostId: string): string {
    return this.#keys.hostKey(hostId, "booking-index");
  }
  /** One of the booking indexes (lua/booking-index.lua): "all", "st:<status>", "due", "key", "meta". */
  bookingIndexPart(hostId: string, part: string): string {
    return this.#keys.hostKey(hostId, "bx", part);
  }
  principalBookings(hostId: string, principal: string): string {
    return this.#keys.hostKey(hostId, "pbk", principal);
  }
  waitlistEntry(hostId: string, entryId: string): string {
    return this.#keys.hostKey(hostId, "wl", entryId);
  }
  /** "wlq" (waiting), "wlo" (offered) or "wlseq" (the line's counter). */
  waitlistPart(hostId: string, part: "wlq" | "wlo" | "wlseq"): string {
    return this.#keys.hostKey(hostId, part);
  }
  waitlistAgent(hostId: string, agentKey: string): string {
    return this.#keys.hostKey(hostId, "wla", agentKey);
  }
  events(hostId: string): string {
    return this.#keys.hostKey(hostId, "events");
  }
  hosts(): string {
    return this.#keys.key("hosts");
  }
  nonce(keyid: string, nonce: string): string {
    return this.#keys.key("nonce", joined(keyid, nonce));
  }
  idempotency(agentKey: string, idempotencyKey: string): string {
    return this.#keys.key("idem", joined(agentKey, idempotencyKey));
  }
  reputation(kind: string, id: string): string {
    return this.#keys.key("rep", kind, id);
  }
}

function joined(first: string, second: string): string {
  return `${first.length}:${first}${second}`;
}
